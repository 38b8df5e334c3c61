/**
 * The audit endpoint's passes, organization by organization: a pass with nothing pending writes
 * nothing; an organization the collector refuses does not hold up the others; a 413 shrinks that
 * organization's batch until the collector takes it; retention keeps what the endpoint has not
 * acknowledged.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createGuardedHttpClient } from '../../adapters/http/guarded-client.ts'
import { createManualClock } from '../../core/ports/clock.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { createAuditLog } from '../../core/services/audit-log.ts'
import { auditEvents } from '../../core/store/audit-events.ts'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import { AUDIT_BATCH, createAuditEndpointShipper } from '../../runtime/hooks/audit-endpoint.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

interface Batch {
  organizationId: string
  records: Array<{ seq: number }>
}

/** Appends `count` records (unsigned: the shipper does not verify chains) to an organization's chain. */
async function appendRecords(store: Store, organizationId: string, count: number, at: number): Promise<void> {
  await store.write(async (tx) => {
    const head = await auditEvents.lockHead(tx, store.dialect, organizationId)
    for (let i = 1; i <= count; i++) {
      const seq = head.seq + i
      await auditEvents.append(tx, {
        id: `aud_${organizationId}_${seq}`,
        organization_id: organizationId,
        seq,
        at,
        actor_kind: 'operator',
        actor_id: 'root',
        actor_name: 'root',
        operation: 'test.act',
        resource_type: 'test',
        resource_id: null,
        outcome: 'success',
        address: null,
        user_agent: null,
        details: '{}',
        hash: `h${seq}`,
      })
    }
  })
}

for (const kind of storeKinds()) {
  describe(`audit endpoint passes (${kind})`, () => {
    let s: TestStore
    let siem: Receiver
    let writes = 0
    const clock = createManualClock()
    /** The store, counting its write transactions. */
    const counted = () =>
      new Proxy(s.store, {
        get(target, name, receiver) {
          if (name === 'write')
            return (fn: Parameters<Store['write']>[0]) => {
              writes++
              return target.write(fn)
            }
          const value = Reflect.get(target, name, receiver)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
    const shipper = () =>
      createAuditEndpointShipper({
        store: counted(),
        clock,
        logger: silentLogger,
        http: createGuardedHttpClient({ allow: ['127.0.0.1/32'] }),
        url: `${siem.url}/collector`,
        secret: SECRET,
        policy: { allowHttp: true, allowList: [] },
        pollMs: 1000,
        timeoutMs: 5000,
        userAgent: 'test',
        owner: 'process-a',
      })
    const received = (organizationId: string) =>
      siem.requests
        .map((r) => JSON.parse(r.body) as Batch)
        .filter((b) => b.organizationId === organizationId)
        .flatMap((b) => b.records.map((r) => r.seq))

    beforeEach(async () => {
      s = await openTestStore(kind)
      await s.store.migrate(MIGRATIONS)
      siem = startReceiver()
      writes = 0
    })
    afterEach(async () => {
      await siem.stop()
      await s.dispose()
    })

    it('writes nothing in a pass when every organization is delivered', async () => {
      for (const org of ['org_a', 'org_b', 'org_c']) await appendRecords(s.store, org, 2, clock.now())
      const ship = await shipper()
      expect(await ship.shipNow()).toBe(6)
      const leases = await s.store.all('SELECT * FROM audit_deliveries ORDER BY organization_id')
      writes = 0
      expect(await ship.shipNow()).toBe(0)
      expect(writes).toBe(0)
      expect(await s.store.all('SELECT * FROM audit_deliveries ORDER BY organization_id')).toEqual(leases)
      await appendRecords(s.store, 'org_b', 1, clock.now())
      expect(await ship.shipNow()).toBe(1)
      expect(received('org_b')).toEqual([1, 2, 3])
      await ship.stop()
    })

    it("delivers the other organizations' records while the collector refuses one", async () => {
      await appendRecords(s.store, 'org_a', 2, clock.now())
      await appendRecords(s.store, 'org_b', 2, clock.now())
      siem.respond((request) =>
        (JSON.parse(request.body) as Batch).organizationId === 'org_a'
          ? new Response('bad', { status: 400 })
          : new Response(null, { status: 204 }),
      )
      const ship = await shipper()
      expect(await ship.shipNow()).toBe(2)
      expect(received('org_b')).toEqual([1, 2])
      expect(received('org_a')).toEqual([1, 2])
      await appendRecords(s.store, 'org_b', 1, clock.now())
      expect(await ship.shipNow()).toBe(1)
      expect(received('org_b')).toEqual([1, 2, 3])
      expect(received('org_a')).toEqual([1, 2])
      clock.advance(2_000)
      expect(await ship.shipNow()).toBe(0)
      expect(received('org_a')).toEqual([1, 2, 1, 2])
      await ship.stop()
    })

    it('halves the batch on 413 until the collector takes it', async () => {
      await appendRecords(s.store, 'org_a', AUDIT_BATCH + 5, clock.now())
      siem.respond((request) =>
        (JSON.parse(request.body) as Batch).records.length > 30
          ? new Response('too large', { status: 413 })
          : new Response(null, { status: 204 }),
      )
      const ship = await shipper()
      expect(await ship.shipNow()).toBe(AUDIT_BATCH + 5)
      const accepted = siem.requests.map((r) => (JSON.parse(r.body) as Batch).records.length).filter((n) => n <= 30)
      expect(Math.max(...accepted)).toBe(25)
      expect(received('org_a').filter((seq, i, all) => all.indexOf(seq) === i)).toHaveLength(AUDIT_BATCH + 5)
      await ship.stop()
    })

    it('keeps records past retention that the endpoint has not acknowledged', async () => {
      const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
      let n = 0
      const log = createAuditLog({ store: s.store, clock, ids: { next: (p) => `${p}_${++n}` }, key })
      await appendRecords(s.store, 'org_a', 3, clock.now())
      siem.respond((_, index) =>
        index === 0 ? new Response(null, { status: 204 }) : new Response('down', { status: 503 }),
      )
      const ship = await shipper()
      await ship.shipNow()
      await appendRecords(s.store, 'org_a', 2, clock.now())
      await ship.shipNow()
      await ship.stop()
      clock.advance(1000)
      expect(await log.prune(clock.now(), { keepUndelivered: true })).toBe(3)
      const left = await s.store.all<{ seq: number }>('SELECT seq FROM audit_events ORDER BY seq')
      expect(left.map((r) => Number(r.seq))).toEqual([4, 5])
      expect(await log.prune(clock.now())).toBe(2)
    })
  })
}
