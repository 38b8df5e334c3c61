/**
 * Activity streams over Postgres, where journal ids commit out of order: an event is delivered
 * only once every smaller id is visible, and an id that never commits (a rollback) holds the
 * stream back only until its transaction has ended, or for the gap wait when a writer stays open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import postgres from 'postgres'
import { memoryBus } from '../../adapters/memory/bus.ts'
import { publishEvents, type RecordedEvent, recordEvents } from '../../core/domain-events.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import { createStreamHub } from '../../runtime/streams.ts'
import { eventually } from '../helpers/eventually.ts'
import { TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

if (!TEST_DATABASE_URL)
  warnSkipped('activity streams over out-of-order Postgres commits', 'AUTOMATON_TEST_DATABASE_URL')

const GAP_WAIT = 400

/**
 * The store, counting the reads that answered a row with the watched id: how often the hub has
 * looked at the journal past a gap. A hub that looked twice has finished its first look (its
 * rounds never overlap), so whatever that look would have delivered has been delivered.
 */
function watchingStore(store: Store) {
  const watch = { id: -1, reads: 0 }
  const watched = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target)
      if (prop !== 'all') return typeof value === 'function' ? value.bind(target) : value
      return async (...args: Parameters<Store['all']>) => {
        const rows = await target.all(...args)
        if (rows.some((row) => Number((row as { id?: unknown }).id) === watch.id)) watch.reads++
        return rows
      }
    },
  })
  return { store: watched, watch }
}

describe.skipIf(!TEST_DATABASE_URL)('activity streams on Postgres', () => {
  let db: TestStore
  let raw: postgres.Sql
  const bus = memoryBus()

  beforeAll(async () => {
    db = await openTestStore('postgres')
    await db.store.migrate(MIGRATIONS)
    raw = postgres(db.location.databaseUrl!, { max: 12, onnotice: () => {} })
  })
  afterAll(async () => {
    await raw?.end()
    await db?.dispose()
  })

  const event = (type: string) => ({
    organizationId: 'org_a',
    workflowId: 'wf_1',
    runId: null,
    seq: null,
    nodeId: null,
    type,
    data: {},
    at: Date.now(),
  })
  /** Writes and announces an event the normal way. */
  async function record(type: string): Promise<RecordedEvent> {
    const [e] = await db.store.write((tx) => recordEvents(tx, [event(type)]))
    publishEvents(bus, [e])
    return e
  }
  /** Begins a transaction that has inserted an event (taking its id) but not committed. */
  async function pending(type: string) {
    const conn = await raw.reserve()
    await conn`BEGIN`
    const [row] = await conn`INSERT INTO journal (organization_id, workflow_id, run_id, seq, type, node_id, data, at)
      VALUES ('org_a', 'wf_1', NULL, NULL, ${type}, NULL, '{}', ${Date.now()}) RETURNING id`
    return {
      id: Number(row.id),
      async end(commit: boolean) {
        await conn.unsafe(commit ? 'COMMIT' : 'ROLLBACK')
        conn.release()
      },
    }
  }

  /** Begins a transaction that has inserted one journal row of several events but not committed. */
  async function pendingPack(types: string[]) {
    const conn = await raw.reserve()
    await conn`BEGIN`
    const data = JSON.stringify(types.map((type) => [type, null, {}, Date.now()]))
    const [row] = await conn`INSERT INTO journal (n, organization_id, workflow_id, run_id, seq, type, node_id, data, at)
      VALUES (${types.length}, 'org_a', 'wf_1', NULL, NULL, '', NULL, ${data}, ${Date.now()}) RETURNING id`
    return {
      id: Number(row.id),
      async end(commit: boolean) {
        await conn.unsafe(commit ? 'COMMIT' : 'ROLLBACK')
        conn.release()
      },
    }
  }

  async function subscribe(gapWaitMs = GAP_WAIT) {
    const { store, watch } = watchingStore(db.store)
    const hub = createStreamHub({ store, bus, logger: silentLogger, gapWaitMs })
    const seen: Array<{ id: number; type: string; at: number }> = []
    const stop = await hub.subscribeOrganization('org_a', {}, await hub.latestEventId(), {
      send: (e) => seen.push({ id: e.id, type: e.type, at: Date.now() }),
      end: () => {},
    })
    /** Resolves once the hub has read the journal past a gap twice, seeing the event `id` each time. */
    const looked = (id: number) => {
      watch.id = id
      return eventually(() => watch.reads >= 2, `the hub to read event ${id} twice`, 5000)
    }
    return { seen, stop, looked }
  }

  const until = (check: () => boolean) => eventually(check, 'the events to be delivered', 5000)

  it('holds back an event until an earlier id commits, then delivers both in id order', async () => {
    // A gap wait longer than the test: however slow the machine, only the commit lets them through.
    const { seen, stop, looked } = await subscribe(60_000)
    const slow = await pending('slow')
    const fast = await record('fast')
    expect(fast.id).toBeGreaterThan(slow.id)
    await looked(fast.id)
    expect(seen).toEqual([])

    await slow.end(true)
    await record('after')
    await until(() => seen.length === 3)
    expect(seen.map((e) => e.type)).toEqual(['slow', 'fast', 'after'])
    stop()
  })

  it('holds back a row of several events until it commits, then delivers its events and the later ones in id order', async () => {
    const { seen, stop, looked } = await subscribe(60_000)
    const slow = await pendingPack(['pack-1', 'pack-2', 'pack-3'])
    const fast = await record('fast')
    expect(fast.id).toBeGreaterThan(slow.id + 2)
    await looked(fast.id)
    expect(seen).toEqual([])

    await slow.end(true)
    const after = await record('after')
    await until(() => seen.length === 5)
    expect(seen.map((e) => e.type)).toEqual(['pack-1', 'pack-2', 'pack-3', 'fast', 'after'])
    expect(seen.map((e) => e.id)).toEqual([slow.id, slow.id + 1, slow.id + 2, fast.id, after.id])
    stop()
  })

  it('holds back an id whose transaction is the newest one running, while an older transaction commits the next id', async () => {
    const { seen, stop, looked } = await subscribe(60_000)
    // The committing transaction gets its transaction id first; the one holding the smaller
    // journal id gets a later transaction id, and no transaction after it has completed.
    const older = await raw.reserve()
    await older`BEGIN`
    await older`SELECT pg_current_xact_id()`
    const slow = await pending('newest-writer')
    const [fast] = await older`INSERT INTO journal (organization_id, workflow_id, run_id, seq, type, node_id, data, at)
      VALUES ('org_a', 'wf_1', NULL, NULL, 'older-writer', NULL, '{}', ${Date.now()}) RETURNING id`
    await older`COMMIT`
    older.release()
    expect(Number(fast.id)).toBeGreaterThan(slow.id)
    bus.publish(`evt.org_a.wf_1`, { organizationId: 'org_a' })
    await looked(Number(fast.id))
    expect(seen).toEqual([])
    await slow.end(true)
    await record('after')
    await until(() => seen.length === 3)
    expect(seen.map((e) => e.type)).toEqual(['newest-writer', 'older-writer', 'after'])
    stop()
  })

  it('moves past an id whose insert rolled back as soon as its transaction ended, not after the gap wait', async () => {
    const { seen, stop, looked } = await subscribe(60_000)
    const doomed = await pending('doomed')
    const next = await record('next')
    await looked(next.id)
    expect(seen).toEqual([])
    await doomed.end(false)
    await until(() => seen.length === 1)
    expect(seen[0].id).toBe(next.id)

    // Once past it, later events flow at once.
    const later = await record('later')
    await until(() => seen.length === 2)
    expect(seen[1].id).toBe(later.id)
    stop()
  })

  it('passes many rolled-back ids together, in well under one gap wait', async () => {
    const { seen, stop } = await subscribe(60_000)
    const doomed = await Promise.all(Array.from({ length: 10 }, (_, i) => pending(`doomed-${i}`)))
    const kept: RecordedEvent[] = []
    for (let i = 0; i < 5; i++) kept.push(await record(`kept-${i}`))
    for (const d of doomed) await d.end(false)
    await until(() => seen.length === 5)
    expect(seen.map((e) => e.id)).toEqual(kept.map((e) => e.id))
    stop()
  })

  it('moves past a missing id after the gap wait while a writer stays open', async () => {
    const { seen, stop } = await subscribe(GAP_WAIT)
    const open = await pending('open')
    const started = Date.now()
    const next = await record('next')
    await until(() => seen.length === 1)
    expect(seen[0].id).toBe(next.id)
    // The gap wait is the hub's own, on the system's time (streams.ts): a lower bound, which a slow
    // machine only makes longer.
    expect(seen[0].at - started).toBeGreaterThanOrEqual(GAP_WAIT - 20)
    await open.end(false)
    stop()
  })
})
