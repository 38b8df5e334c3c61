/**
 * Run queries that are asked often and must not read every run ever made: the heartbeat sweep
 * (`runs.needingExecution`, every few seconds, also while a burst has queued tens of thousands
 * of runs in this process) and status counts (dashboards poll them). What they answer, on both
 * stores, and (SQLite) that they read an index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import type { SqlValue, Store } from '../../core/ports/store.ts'
import { runs } from '../../core/store/runs.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

const NOW = 1_800_000_000_000
const STALE_BEFORE = NOW - 15_000

for (const kind of storeKinds()) {
  describe(`run queries (${kind})`, () => {
    let t: TestStore
    beforeAll(async () => {
      t = await openTestStore(kind)
      await t.store.migrate(MIGRATIONS)
      await t.store.write(async (tx) => {
        for (const [id, heartbeat] of [
          ['wkr_me', NOW],
          ['wkr_alive', NOW - 1000],
          ['wkr_dead', NOW - 60_000],
        ] as const) {
          await tx.run('INSERT INTO workers (id, role, host, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5)', [
            id,
            'worker',
            'h',
            0,
            heartbeat,
          ])
        }
        const run = (id: string, status: string, owner: string | null, updatedAt = NOW) =>
          tx.run(
            `INSERT INTO runs (id, organization_id, workflow_id, workflow_version, status, trigger_type, trigger_node_id, triggered_by,
             automatic, live, definition_hash, trigger_event, prop_values, vars, last_seq, started_at, updated_at, owner)
           VALUES ($1, 'org_1', 'wf_1', 1, $2, 'manual', 'root', 'api', 0, 1, 'h', '{}', '{}', '{}', 0, 0, $3, $4)`,
            [id, status, updatedAt, owner],
          )
        await run('run_unowned', 'running', null, NOW - 60_000)
        // Admitted by an API process a moment ago: the work queue hands it to a worker first.
        await run('run_unowned_new', 'running', null)
        await run('run_of_dead', 'running', 'wkr_dead')
        await run('run_of_vanished', 'running', 'wkr_gone')
        await run('run_mine_stale', 'running', 'wkr_me', NOW - 60_000)
        await run('run_mine_busy', 'running', 'wkr_me')
        await run('run_of_alive', 'running', 'wkr_alive', NOW - 60_000)
        await run('run_waiting', 'waiting', null)
        await run('run_done', 'success', 'wkr_dead')
        await run('run_waiting_with_inbox', 'waiting', 'wkr_alive')
        await tx.run('INSERT INTO run_inbox (id, run_id, event, created_at) VALUES ($1, $2, $3, $4)', [
          'evt_1',
          'run_waiting_with_inbox',
          '{}',
          NOW,
        ])
      })
    })
    afterAll(() => t.dispose())

    it('hands over runs without a live owner (unowned ones once the work queue had its chance), its own runs left untouched, and runs with inbox events', async () => {
      const ids = (await runs.needingExecution(t.store, 'wkr_me', STALE_BEFORE)).map((r) => r.id).sort()
      expect(ids).toEqual(['run_mine_stale', 'run_of_dead', 'run_of_vanished', 'run_unowned', 'run_waiting_with_inbox'])
    })

    it('leaves its own stale runs out when asked to (they are queued in this process under a backlog)', async () => {
      const ids = (await runs.needingExecution(t.store, 'wkr_me', STALE_BEFORE, { own: false })).map((r) => r.id).sort()
      expect(ids).toEqual(['run_of_dead', 'run_of_vanished', 'run_unowned', 'run_waiting_with_inbox'])
    })

    it('counts runs by status for an organization, a workflow, and since a time', async () => {
      const counts = async (filter: { workflowId?: string; since?: number }) =>
        Object.fromEntries((await runs.statusCounts(t.store, 'org_1', filter)).map((r) => [r.status, Number(r.n)]))
      expect(await counts({})).toEqual({ running: 7, waiting: 2, success: 1 })
      expect(await counts({ workflowId: 'wf_1' })).toEqual({ running: 7, waiting: 2, success: 1 })
      expect(await counts({ workflowId: 'wf_other' })).toEqual({})
      expect(await counts({ since: 1 })).toEqual({})
      expect(
        Object.fromEntries((await runs.statusCounts(t.store, 'org_other', {})).map((r) => [r.status, r.n])),
      ).toEqual({})
    })

    if (kind === 'sqlite') {
      /** The store's own queries, explained: a query function given this asks for its plan instead. */
      const explain = () =>
        ({
          all: (sql: string, params: readonly SqlValue[]) => t.store.all(`EXPLAIN QUERY PLAN ${sql}`, params),
        }) as unknown as Store
      const details = (plan: unknown) => (plan as Array<{ detail: string }>).map((row) => row.detail)

      it('counts statuses from the index alone', async () => {
        for (const filter of [{}, { workflowId: 'wf_1' }, { workflowId: 'wf_1', since: 0 }, { since: 0 }]) {
          expect(details(await runs.statusCounts(explain(), 'org_1', filter)).join(' | ')).toContain(
            'USING COVERING INDEX runs_status_counts',
          )
        }
      })

      it('reads running runs by owner through the partial index, never scanning them', async () => {
        for (const own of [true, false]) {
          const onRuns = details(await runs.needingExecution(explain(), 'wkr_me', STALE_BEFORE, { own })).filter((d) =>
            / runs\b/.test(d),
          )
          expect(onRuns.length).toBeGreaterThan(0)
          for (const detail of onRuns) expect(detail).toContain('runs_running_owner')
        }
      })
    }
  })
}
