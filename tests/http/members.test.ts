/**
 * Members: inviting (and accepting), reading, changing roles and removing. Removing a member revokes their keys
 * and pauses the live workflows they own, which stops their schedules and their integration
 * triggers at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'
import { addMember } from '../helpers/people.ts'

for (const kind of storeKinds()) {
  describe(`members (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const invite = async (email: string, role = 'developer') => {
      const person = await addMember(t, email, role)
      return (await t.call('GET', `/v1/members/${person.userId}`)).body.data
    }

    it('invites, lists, reads and changes the role of a member', async () => {
      const ann = await invite(`Ann-${kind}@Example.com`)
      expect(ann.userId).toMatch(/^usr_/)
      expect(ann).toMatchObject({ email: `ann-${kind}@example.com`, role: 'developer' })
      const listed = (await t.call('GET', '/v1/members?limit=100')).body.data.items
      expect(listed.map((m: { userId: string }) => m.userId)).toContain(ann.userId)
      expect((await t.call('PATCH', `/v1/members/${ann.userId}`, { body: { role: 'viewer' } })).body.data.role).toBe(
        'viewer',
      )
      expect((await t.call('GET', `/v1/members/${ann.userId}`)).body.data.role).toBe('viewer')
      expect((await t.call('PATCH', `/v1/members/${ann.userId}`, { body: { role: 'emperor' } })).status).toBe(400)
      expect((await t.call('GET', '/v1/members/usr_nobody')).status).toBe(404)
    })

    it('refuses member changes to a read-only key and keeps organizations apart', async () => {
      const bob = await invite(`bob-${kind}@example.com`)
      const reader = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data
      const denied = await t.call('DELETE', `/v1/members/${bob.userId}`, { key: reader.key })
      expect(denied.status).toBe(403)
      expect(denied.body.code).toBe(403)
      const other = await t.newOrganization(`members-other-${kind}`)
      expect((await t.call('DELETE', `/v1/members/${bob.userId}`, { key: other.key })).status).toBe(404)
      expect((await t.call('GET', `/v1/members/${bob.userId}`)).status).toBe(200)
    })

    it("on removal, revokes the member's keys and pauses their live workflows, schedules included", async () => {
      const cara = await invite(`cara-${kind}@example.com`)
      const caraKey = await t.system.apiKeys.issue({
        organizationId: (await t.call('GET', '/v1/me')).body.data.organizationId,
        name: 'cara',
        scope: 'read-write',
        role: 'developer',
        serviceAccountId: null,
        userId: cara.userId,
        createdBy: cara.userId,
        expiresAt: null,
      })
      expect((await t.call('GET', '/v1/me', { key: caraKey.key })).status).toBe(200)

      const scheduled = await createLive(t, {
        name: 'hourly',
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'cronjob', payload: { expression: '0 * * * *' }, children: ['say'] },
            say: { type: 'log', payload: { message: 'tick' } },
          },
        },
      })
      const manual = await createLive(t, {
        name: 'manual',
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } },
        },
      })
      for (const w of [scheduled, manual])
        expect(
          (await t.call('PUT', `/v1/workflows/${w.id}/owner`, { body: { ownerUserId: cara.userId } })).status,
        ).toBe(200)
      expect((await t.call('GET', `/v1/workflows/${scheduled.id}/schedule`)).body.data.active).toBe(true)

      const removed = await t.call('DELETE', `/v1/members/${cara.userId}`)
      expect(removed.status).toBe(200)
      expect(removed.body.data).toEqual({
        userId: cara.userId,
        removed: true,
        pausedWorkflowIds: expect.arrayContaining([scheduled.id, manual.id]),
      })

      expect((await t.call('GET', '/v1/me', { key: caraKey.key })).status).toBe(401)
      expect((await t.call('GET', `/v1/members/${cara.userId}`)).status).toBe(404)
      for (const w of [scheduled, manual]) {
        expect((await t.call('GET', `/v1/workflows/${w.id}/live`)).body.data).toMatchObject({
          status: 'paused',
          pausedReason: 'member_removed',
        })
      }
      const schedule = (await t.call('GET', `/v1/workflows/${scheduled.id}/schedule`)).body.data
      expect(schedule).toMatchObject({ active: false, reason: 'paused' })
      expect(schedule.triggers.map((s: { active: boolean }) => s.active)).toEqual([false])
      // The trigger index follows too: an event for the paused workflow's trigger type starts nothing.
      const live = await t.system.store.all<{ active: number }>(
        'SELECT active FROM live_triggers WHERE workflow_id = $1',
        [manual.id],
      )
      expect(live.map((r) => Number(r.active))).toEqual([0])
      const hook = await t.call('POST', `/v1/webhooks/${manual.triggerSecret}`, { body: { x: 1 } })
      expect(hook.body.data).toMatchObject({ action: 'skipped', reason: 'member_removed' })
    })
  })
}
