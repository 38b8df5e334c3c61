/**
 * The heartbeat sweep (`runs.needingExecution`) asks every few seconds, so it must read active
 * runs only, never every run ever made. SQLite uses the partial index runs_active only when the
 * query states its condition; this pins that the sweep does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MIGRATIONS } from '../../../core/store/migrations.ts'
import { NEEDING_EXECUTION_SQL } from '../../../core/store/runs.ts'
import { openTestStore, type TestStore } from '../../helpers/stores.ts'

describe('the heartbeat sweep on SQLite', () => {
  let t: TestStore
  beforeAll(async () => {
    t = await openTestStore('sqlite')
    await t.store.migrate(MIGRATIONS)
  })
  afterAll(() => t.dispose())

  it('searches the active-runs index instead of scanning every run', async () => {
    const plan = await t.store.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${NEEDING_EXECUTION_SQL}`, ['wrk_a', 0])
    const details = plan.map((row) => row.detail)
    expect(details.some((d) => d.includes('runs USING INDEX runs_active'))).toBe(true)
    expect(details.some((d) => /SCAN runs\b/.test(d))).toBe(false)
  })
})
