/**
 * Fairness and concurrency keys together: a run that already counts against its concurrency key
 * is not held for its organization's turn, so it keeps counting as running against the key, and a
 * release of the key never lets more runs execute than its limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { memoryBus } from '../../adapters/memory/bus.ts'
import { systemClock } from '../../core/ports/clock.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import { fairRuns, flowRuns } from '../../core/store/flow-control.ts'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import { createFlowReleases } from '../../runtime/dispatch/flow-releases.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

for (const kind of storeKinds()) {
  describe(`fairness and concurrency keys (${kind})`, () => {
    let s: TestStore
    beforeAll(async () => {
      s = await openTestStore(kind)
      await s.store.migrate(MIGRATIONS)
    })
    afterAll(() => s.dispose())

    /** A run just admitted, not taken by a worker yet. */
    const admitted = (id: string, at: number) =>
      s.store.run(
        `INSERT INTO runs (id, organization_id, workflow_id, workflow_version, status, trigger_type, trigger_node_id,
          triggered_by, automatic, live, definition_hash, trigger_event, prop_values, vars, last_seq, started_at, updated_at)
         VALUES ($1, 'org_a', 'wf_1', 1, 'running', 't', 'n', 'webhook', 0, 1, 'h', '{}', '{}', '{}', 0, $2, $2)`,
        [id, at],
      )
    const executing = async () =>
      (await s.store.all<{ id: string }>("SELECT id FROM runs WHERE status = 'running' ORDER BY id")).map((r) => r.id)

    it('never holds a run that counts against its key, so a release keeps the limit', async () => {
      // Limit 2: A executes; B was admitted with room on the key; C waits for the key.
      await admitted('run_a', 1)
      await s.store.run("UPDATE runs SET owner = 'w1', snapshot = '{}' WHERE id = 'run_a'")
      await admitted('run_b', 2)
      await s.store.write((tx) => flowRuns.mark(tx, 'run_a', 'k'))
      await s.store.write((tx) => flowRuns.mark(tx, 'run_b', 'k'))
      // The fairness gate would hold B (its organization is past its line): it refuses to.
      expect(await s.store.write((tx) => fairRuns.hold(tx, 'run_b', 2))).toBe(false)
      expect(await flowRuns.counts(s.store, 'wf_1', 'k')).toMatchObject({ running: 2, held: 0 })

      await admitted('run_c', 3)
      await s.store.write((tx) =>
        flowRuns.hold(tx, 'run_c', 'k', JSON.stringify({ reason: 'concurrency', key: 'k', limit: 2, priority: 50 })),
      )
      const woken: string[] = []
      const releases = createFlowReleases({
        store: s.store,
        bus: memoryBus(),
        clock: systemClock,
        logger: silentLogger,
        wake: (id) => woken.push(id),
      })
      try {
        releases.note('wf_1')
        await releases.sweep()
        // The key is full (A and B): C stays waiting, and no fairness release has B to let go.
        expect(woken).toEqual([])
        expect(await executing()).toEqual(['run_a', 'run_b'])
        expect(await s.store.write((tx) => fairRuns.release(tx, 'org_a', 10, 5))).toEqual([])
        expect(await flowRuns.counts(s.store, 'wf_1', 'k')).toMatchObject({ running: 2, held: 1 })
      } finally {
        await releases.stop()
      }
    })
  })
}
