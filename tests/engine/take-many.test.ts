/**
 * A worker takes the runs its turn starts in one statement (runs.acquireMany), with the rule of
 * taking one run: a run is taken when nobody owns it, this worker owns it, or its owner's
 * heartbeat is stale; one held by a live worker, one that ended and one that does not exist are
 * left out of the answer. Both stores.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { runs } from '../../core/store/runs.ts'
import { workers } from '../../core/store/workers.ts'
import { TEST_DATABASE_URL } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

const kinds = TEST_DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)

describe.each(kinds)('taking several runs at once (%s)', (kind) => {
  let t: TestSystem | null = null
  afterEach(async () => {
    await t?.close()
    t = null
  })

  it('takes the runs this worker may own, and only those, returning their rows', async () => {
    t = await openTestSystem(kind)
    const { store } = t.system
    const waits = await createLive(t, {
      definition: linear({ pause: { type: 'delay', payload: { delayMs: 600_000 } } }, ['pause']),
    })
    const ended = await createLive(t, {
      definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
    })
    const start = async (id: string) =>
      (await t!.call('POST', `/v1/workflows/${id}/run`, { body: { payload: {} } })).body.data.runId as string
    const [a, b, c] = [await start(waits.id), await start(waits.id), await start(waits.id)]
    const done = await start(ended.id)
    for (const id of [a, b, c]) await waitForRun(t, id, (r) => r.status === 'waiting')
    await waitForRun(t, done, (r) => r.status === 'success')
    // A heartbeat at 1,000: alive for a take that counts heartbeats from 500 on, stale for one from 2,000.
    await store.write((tx) => workers.register(tx, { id: 'wkr_alive', role: 'worker', host: 'test', at: 1000 }))
    const take = (ids: string[], workerId: string, staleBefore: number) =>
      store.write((tx) => runs.acquireMany(tx, store.dialect, ids, workerId, staleBefore))
    const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort()

    const first = await take([a, b, done, 'run_missing'], 'wkr_alive', 500)
    expect(ids(first)).toEqual([a, b].sort())
    expect(first.every((r) => r.owner === 'wkr_alive' && r.status === 'waiting' && !Number(r.has_inbox))).toBe(true)
    expect(first.every((r) => typeof r.trigger_event === 'string' && r.definition_hash)).toBe(true)

    // Held by a live worker: left out; nobody's: taken.
    expect(ids(await take([a, b, c], 'wkr_other', 500))).toEqual([c])
    // Its owner's heartbeat is stale: taken over.
    expect(ids(await take([a], 'wkr_other', 2000))).toEqual([a])
    const [row] = await store.all<{ owner: string }>('SELECT owner FROM runs WHERE id = $1', [a])
    expect(row.owner).toBe('wkr_other')
  })
})
