/**
 * What a run stores once: a journal event's run and workflow ids live in the row's columns, and
 * the trigger event in the run's `trigger_event`, not again in its data or snapshot. Reading puts
 * them back, and rows stored whole by earlier versions read as they always did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { recordEvents } from '../../core/domain-events.ts'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import { organizationEvents, runEvents } from '../helpers/journal.ts'
import { restoreSnapshot, runStateOf, storedSnapshot } from '../../runtime/engine/stored-snapshot.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

const base = { organizationId: 'org_1', workflowId: 'wf_1', runId: 'run_1', nodeId: null, at: 1_800_000_000_000 }

for (const kind of storeKinds()) {
  describe(`journal rows (${kind})`, () => {
    let s: TestStore
    beforeAll(async () => {
      s = await openTestStore(kind)
      await s.store.migrate(MIGRATIONS)
    })
    afterAll(() => s.dispose())

    const raw = async (runId: string) =>
      (
        await s.store.all<{ seq: number; data: string }>(
          'SELECT seq, data FROM events WHERE run_id = $1 ORDER BY seq',
          [runId],
        )
      ).map((r) => JSON.parse(r.data))
    const read = async (runId: string) => (await runEvents(s.store, runId)).map((e) => e.data)

    it("stores a run event's data without its ids and reads it back with them, first, as recorded", async () => {
      const data = { runId: 'run_1', workflowId: 'wf_1', key: 'a', result: { runId: 'inner' } }
      const bare = { runId: 'run_1', workflowId: 'wf_1' }
      const recorded = await s.store.write((tx) =>
        recordEvents(tx, [
          { ...base, seq: 1, type: 'node.succeeded', data },
          { ...base, seq: 2, type: 'run.succeeded', data: bare },
        ]),
      )
      expect(recorded.map((e) => e.data)).toEqual([data, bare])
      expect(await raw('run_1')).toEqual([{ key: 'a', result: { runId: 'inner' } }, {}])
      const [back, end] = await read('run_1')
      expect(back).toEqual(data)
      expect(Object.keys(back)).toEqual(['runId', 'workflowId', 'key', 'result'])
      expect(end).toEqual(bare)
    })

    it('keeps data whose ids differ from the columns, workflow events, and rows stored whole', async () => {
      const other = { runId: 'run_other', workflowId: 'wf_1', note: 'x' }
      const paused = { workflowId: 'wf_1', reason: 'consecutive_failures', runId: 'run_2' }
      await s.store.write((tx) =>
        recordEvents(tx, [
          { ...base, runId: 'run_2', seq: 1, type: 'run.started', data: other },
          { ...base, runId: null, seq: null, type: 'workflow.paused', data: paused },
        ]),
      )
      expect(await raw('run_2')).toEqual([other])
      expect(await read('run_2')).toEqual([other])
      const [workflowEvent] = (await organizationEvents(s.store, 'org_1')).filter((e) => e.type === 'workflow.paused')
      expect(workflowEvent.data).toEqual(paused)
      // As an earlier version stored it: the ids in the data too.
      const whole = { runId: 'run_3', workflowId: 'wf_1', key: 'b' }
      await s.store.run(
        'INSERT INTO journal (organization_id, workflow_id, run_id, seq, type, node_id, data, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        ['org_1', 'wf_1', 'run_3', 1, 'node.started', 'b', JSON.stringify(whole), base.at],
      )
      expect(await read('run_3')).toEqual([whole])
    })
  })
}

describe('stored snapshots', () => {
  const trigger = { type: 'webhook', body: { order: 'A-1' }, headers: {}, receivedAt: '2026-11-27T00:00:00.000Z' }
  const persisted = () => ({
    status: 'done',
    value: 'success',
    context: {
      runId: 'run_1',
      triggerNodeId: 'root',
      trigger,
      vars: {},
      nodes: {
        root: { nodeId: 'root', key: 'root', status: 'success', result: trigger },
        next: { nodeId: 'next', key: 'next', status: 'success', result: { ok: true } },
      },
    },
  })

  it('leaves the trigger event out and puts it back from the row, without changing the snapshot it was given', () => {
    const snapshot = persisted()
    const stored = storedSnapshot(snapshot)
    expect(stored).not.toContain('A-1')
    expect(snapshot.context.nodes.root.result).toBe(trigger)
    expect(snapshot.context.trigger).toBe(trigger)
    expect(restoreSnapshot(stored, JSON.stringify(trigger))).toEqual(JSON.parse(JSON.stringify(persisted())))
    expect(runStateOf(stored, JSON.stringify(trigger))?.nodes.root.result).toEqual(trigger)
  })

  it('reads a snapshot stored whole as it is', () => {
    const whole = JSON.stringify(persisted())
    expect(restoreSnapshot(whole, JSON.stringify({ ...trigger, body: { order: 'other' } }))).toEqual(JSON.parse(whole))
  })
})
