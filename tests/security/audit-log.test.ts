/**
 * The audit log: every operation of the OpenAPI document that changes something leaves exactly
 * one record, a refusal leaves a `refused` one, sign-in is recorded in each organization of the
 * person, the chain verifies, and a record edited in the database is found by verification.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { PERMISSIONS } from '../../core/domain/permissions.ts'
import { createResources, realPath, type Resources } from '../helpers/resources.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { startScriptedOpenAi, type ScriptedOpenAi, textTurn } from '../helpers/openai-server.ts'
import { addMember, signIn } from '../helpers/people.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

interface DocOperation {
  'x-permissions'?: string[]
}

const count = async (t: TestSystem, org?: string) =>
  Number(
    (
      await t.system.store.get<{ n: number }>(
        org
          ? 'SELECT COUNT(*) AS n FROM audit_events WHERE organization_id = $1'
          : 'SELECT COUNT(*) AS n FROM audit_events',
        org ? [org] : [],
      )
    )?.n ?? 0,
  )

/** Deletions last, the deepest first, so that what later operations name still exists. */
const rank = (method: string, path: string) => (method === 'DELETE' ? 100 - path.split('/').length : 0)

for (const kind of storeKinds()) {
  describe(`audit log (${kind})`, () => {
    let t: TestSystem
    let hooks: Receiver
    let model: ScriptedOpenAi
    let resources: Resources
    beforeAll(async () => {
      hooks = startReceiver()
      model = startScriptedOpenAi()
      model.queue(...Array.from({ length: 200 }, () => textTurn('noted')))
      t = await openTestSystem(kind, {
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        AUTOMATON_HOOK_ALLOW_HTTP: 'true',
        AUTOMATON_OPERATOR_ORG: 'acme',
        AUTOMATON_AI_BASE_URL: model.url,
        AUTOMATON_AI_MODEL: 'scripted',
        AUTOMATON_AI_DEFAULT_CREDITS: '1000000',
      })
      resources = await createResources(t, hooks.url, `audit-${kind}`)
    })
    afterAll(async () => {
      await t?.close()
      await hooks?.stop()
      await model?.stop()
    })

    it('records each operation that changes something exactly once', async () => {
      const doc = (await t.call('GET', '/v1/openapi.json', { key: null })).body
      const ops: Array<{ method: string; path: string }> = []
      for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, DocOperation>>))
        for (const [method, op] of Object.entries(methods))
          if (method !== 'get' && (op['x-permissions'] ?? []).length > 0)
            ops.push({ method: method.toUpperCase(), path })
      ops.sort((a, b) => rank(a.method, a.path) - rank(b.method, b.path))
      expect(ops.length).toBeGreaterThan(60)
      const wrong: unknown[] = []
      const unnamed: unknown[] = []
      for (const op of ops) {
        const path = realPath(op.path, resources)
        if (path === null) continue
        const before = await count(t)
        const r = await t.call(op.method, path, { body: op.method === 'DELETE' ? undefined : {} })
        const added = (await count(t)) - before
        if (added !== 1) wrong.push({ ...op, status: r.status, added })
        // A creation's record names what it created.
        const created = r.status === 201 || (op.method === 'POST' && r.status === 200) ? r.body?.data?.id : undefined
        if (typeof created === 'string' && /^[a-z0-9]+_/.test(created)) {
          const last = await t.system.store.get<{ resource_id: string | null }>(
            'SELECT resource_id FROM audit_events ORDER BY at DESC, seq DESC LIMIT 1',
          )
          if (last?.resource_id !== created) unnamed.push({ ...op, created, recorded: last?.resource_id })
        }
      }
      expect(wrong).toEqual([])
      expect(unnamed).toEqual([])
    })

    it("names the created resource's id in a creation's record", async () => {
      const created: Record<string, string> = {
        'POST /v1/workflows': resources.byPrefix['/v1/workflows/{id}'],
        'POST /v1/execution-webhooks': resources.byPrefix['/v1/execution-webhooks/{id}'],
        'POST /v1/service-accounts': resources.byPrefix['/v1/service-accounts/{id}'],
        'POST /v1/api-keys': resources.byPrefix['/v1/api-keys/{id}'],
        'POST /v1/members': resources.byPrefix['/v1/invitations/{id}'],
        'POST /v1/connectors': resources.byPrefix['/v1/connectors/{id}'],
        'POST /v1/tags': resources.byPrefix['/v1/tags/{id}'],
        'POST /v1/templates': resources.byPrefix['/v1/templates/{id}'],
        'POST /v1/apps': resources.byPrefix['/v1/apps/{id}'],
        'POST /v1/wallets': resources.byPrefix['/v1/wallets/{id}'],
        'POST /v1/agent-cards': resources.byPrefix['/v1/agent-cards/{id}'],
      }
      const records = (
        await t.system.store.all<{ resource_id: string | null; details: string }>(
          "SELECT resource_id, details FROM audit_events WHERE organization_id = $1 AND outcome = 'allowed'",
          [t.orgId],
        )
      ).map((r) => ({ id: r.resource_id, route: JSON.parse(r.details).route as string }))
      const named: Record<string, string | null> = {}
      for (const route of Object.keys(created))
        named[route] = records.find((r) => r.route === route && r.id === created[route])?.id ?? null
      expect(named).toEqual(created)
      const hook = await t.call('POST', `/v1/workflows/${created['POST /v1/workflows']}/webhooks`, { body: {} })
      if (hook.status === 200 || hook.status === 201) {
        const [last] = (await t.call('GET', '/v1/audit-events?limit=1')).body.data.items
        expect(last.details.parentId).toBe(created['POST /v1/workflows'])
      }
    })

    it('records a refusal, and lists records to those holding audit:read only', async () => {
      const account = await t.call('POST', '/v1/service-accounts', {
        body: {
          name: 'auditless',
          permissions: PERMISSIONS.filter((p) => p !== 'workflow:create' && p !== 'audit:read'),
        },
      })
      const key = (
        await t.call('POST', '/v1/api-keys', { body: { name: 'auditless', serviceAccountId: account.body.data.id } })
      ).body.data.key
      expect((await t.call('POST', '/v1/workflows', { key, body: { name: 'refused' } })).status).toBe(403)
      expect((await t.call('GET', '/v1/audit-events', { key })).status).toBe(403)
      const page = (await t.call('GET', '/v1/audit-events?limit=5')).body.data
      expect(page.items[0]).toMatchObject({ outcome: 'refused', actor: { kind: 'key' }, organizationId: t.orgId })
      expect(page.items[0].operation).toBe('GET /v1/audit-events')
      expect(page.items[1]).toMatchObject({ outcome: 'refused' })
      const byOp = (await t.call('GET', '/v1/audit-events?operation=apiKeys.create&limit=1')).body.data
      expect(byOp.items[0]).toMatchObject({ outcome: 'allowed', actor: { kind: 'key', name: 'owner' } })
    })

    it('records a sign-in in the organizations of the person, and none elsewhere', async () => {
      const other = await t.newOrganization(`audit-other-${kind}`)
      const person = await addMember(t, `audit-person-${kind}@example.com`)
      const before = [await count(t, t.orgId), await count(t, other.orgId)]
      expect((await signIn(t, person.email)).status).toBe(200)
      expect([await count(t, t.orgId), await count(t, other.orgId)]).toEqual([before[0] + 1, before[1]])
      const signIns = (await t.call('GET', '/v1/audit-events?operation=auth.signIn&limit=1')).body.data.items
      expect(signIns[0].actor).toMatchObject({ kind: 'person', name: person.email })
    })

    it('verifies the chain, and finds a record edited in the database', async () => {
      expect((await t.system.audit.verify(t.orgId))[0].broken).toBeNull()
      const row = await t.system.store.get<{ id: string; seq: number }>(
        'SELECT id, seq FROM audit_events WHERE organization_id = $1 ORDER BY seq LIMIT 1 OFFSET 3',
        [t.orgId],
      )
      await t.system.store.write((tx) =>
        tx.run("UPDATE audit_events SET outcome = 'allowed', operation = 'nothing' WHERE id = $1", [row!.id]),
      )
      const [report] = await t.system.audit.verify(t.orgId)
      expect(report.broken).toMatchObject({ seq: Number(row!.seq), id: row!.id })
    })
  })
}
