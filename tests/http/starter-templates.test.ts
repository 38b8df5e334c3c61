/**
 * Starter templates: a fresh installation offers five approved templates of the operator
 * organization, tagged, that run without outside accounts; once only, and never with
 * AUTOMATON_STARTER_TEMPLATES=false.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { STARTER_TEMPLATES } from '../../core/services/starter-template-list.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`starter templates (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_STARTER_TEMPLATES: 'true' })
    })
    afterAll(() => t.close())

    const gallery = async (key?: string) =>
      (await t.call('GET', '/v1/templates?limit=100', { key })).body.data.items as Array<Record<string, any>>

    it('offers five approved, tagged templates of the operator organization on a fresh installation', async () => {
      const newcomer = await t.newOrganization(`newcomer-${kind}`)
      const items = await gallery(newcomer.key)
      expect(items.map((i) => i.slug).sort()).toEqual(STARTER_TEMPLATES.map((s) => s.slug).sort())
      for (const item of items) {
        expect(item).toMatchObject({ visibility: 'public', moderationStatus: 'approved', organizationName: 'default' })
        expect(item.tags.length).toBeGreaterThan(0)
      }
    })

    it('forks into a workflow that runs with no connector', async () => {
      const newcomer = await t.newOrganization(`forker-${kind}`)
      const route = (await gallery(newcomer.key)).find((i) => i.slug === 'starter-route-by-amount')!
      const forked = await t.call('POST', `/v1/templates/${route.id}/fork`, { key: newcomer.key, body: {} })
      expect(forked.status).toBe(200)
      const started = await t.call('POST', `/v1/workflows/${forked.body.data.workflow.id}/run`, {
        key: newcomer.key,
        body: { payload: { amount: 150 } },
      })
      const run = await waitForRun(t, started.body.data.runId, undefined, undefined, newcomer.key)
      expect(run.status).toBe('success')
      expect(run.nodes.review.result.message).toBe('large order: 150')
    })

    it('offers them once: a restart adds none, and an archived one stays archived', async () => {
      const before = await gallery()
      const operator = await t.system.apiKeys.issue({
        organizationId: before[0].organizationId,
        name: 'operator',
        scope: 'read-write',
        role: 'owner',
        serviceAccountId: null,
        userId: null,
        createdBy: 'test',
        expiresAt: null,
      })
      expect((await t.call('DELETE', `/v1/templates/${before[0].id}`, { key: operator.key })).status).toBe(200)
      const again = await t.openSibling()
      try {
        const after = (await again.call('GET', '/v1/templates?limit=100')).body.data.items
        expect(after.length).toBe(before.length - 1)
      } finally {
        await again.close()
      }
    })

    it('leaves them out with AUTOMATON_STARTER_TEMPLATES=false', async () => {
      const bare = await openTestSystem(kind)
      try {
        expect((await bare.call('GET', '/v1/templates')).body.data.items).toEqual([])
      } finally {
        await bare.close()
      }
    })
  })
}
