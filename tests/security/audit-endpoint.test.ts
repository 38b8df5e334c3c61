/**
 * Audit records delivered to a SIEM's endpoint (AUTOMATON_AUDIT_ENDPOINT): POSTs signed like
 * execution hooks, each organization's records in chain order, retried while the endpoint fails,
 * and not sent again once acknowledged, across a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { verifyWebhook } from '../../core/security/webhook-signature.ts'
import { eventually } from '../helpers/eventually.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

interface Batch {
  type: string
  organizationId: string
  records: Array<{ id: string; seq: number; organizationId: string; operation: string }>
}

for (const kind of storeKinds()) {
  describe(`audit records to an endpoint (${kind})`, () => {
    let t: TestSystem
    /** The first process: its close() disposes of the data the restarted one used too. */
    let first: TestSystem
    let siem: Receiver
    const env = () => ({
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_HOOK_ALLOW_HTTP: 'true',
      AUTOMATON_HOOK_POLL_MS: '20',
      AUTOMATON_AUDIT_ENDPOINT: `${siem.url}/collector`,
      AUTOMATON_AUDIT_ENDPOINT_SECRET: SECRET,
    })
    /** The records the endpoint acknowledged (answered 2xx), in the order it received them. */
    const acknowledged = () =>
      siem.requests
        .filter((_, i) => accepted.has(i))
        .flatMap((r) => (JSON.parse(r.body) as Batch).records.filter((rec) => rec.organizationId === t.orgId))
    const accepted = new Set<number>()
    const stored = async () =>
      (
        await t.system.store.all<{ id: string }>(
          'SELECT id FROM audit_events WHERE organization_id = $1 ORDER BY seq',
          [t.orgId],
        )
      ).map((r) => r.id)

    beforeAll(async () => {
      siem = startReceiver()
      // The collector is down for its first three requests, then acknowledges.
      siem.respond((_, index) => {
        if (index < 3) return new Response('unavailable', { status: 503 })
        accepted.add(index)
        return new Response(null, { status: 204 })
      })
      t = await openTestSystem(kind, env())
      first = t
    })
    afterAll(async () => {
      if (t !== first) await t?.close()
      await first?.close()
      await siem?.stop()
    })

    it('delivers every record once acknowledged, in chain order, signed, retrying while the endpoint fails', async () => {
      for (let i = 0; i < 5; i++)
        expect(
          (await t.call('POST', '/v1/service-accounts', { body: { name: `siem-${i}`, permissions: [] } })).status,
        ).toBe(200)
      const ids = await stored()
      expect(ids.length).toBeGreaterThanOrEqual(5)
      await eventually(async () => acknowledged().length >= ids.length, 'the records at the endpoint')
      expect(acknowledged().map((r) => r.id)).toEqual(ids)
      const seqs = acknowledged().map((r) => r.seq)
      expect(seqs).toEqual(seqs.map((_, i) => i + 1))
      expect(siem.requests.slice(0, 3).every((r) => r.path === '/collector')).toBe(true)
      for (const request of siem.requests) {
        expect(request.headers['content-type']).toBe('application/json')
        expect(await verifyWebhook(SECRET, request.headers, request.body)).toBeNull()
        expect(await verifyWebhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', request.headers, request.body)).toBe(
          'no signature matches',
        )
      }
      expect((JSON.parse(siem.requests[3].body) as Batch).type).toBe('audit.records')
    })

    it('sends only what came after the acknowledged records when the process starts again', async () => {
      await t.stop()
      const before = acknowledged().length
      t = await t.openSibling(env())
      expect(
        (await t.call('POST', '/v1/service-accounts', { body: { name: 'after-restart', permissions: [] } })).status,
      ).toBe(200)
      const ids = await stored()
      await eventually(async () => acknowledged().length >= ids.length, 'the new record at the endpoint')
      expect(acknowledged().length).toBe(ids.length)
      expect(
        acknowledged()
          .slice(before)
          .map((r) => r.operation),
      ).toEqual(['serviceAccounts.create'])
    })
  })
}
