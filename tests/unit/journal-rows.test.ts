/**
 * The journal's rows: the events one write records for a run share one row, each event keeps an
 * id of its own (unique, increasing, with no two rows' ranges overlapping, also when several
 * processes write at once on Postgres), and every reader sees one event at a time, from any
 * position inside a row. Rows stored one event each, as before, read as they always did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type DomainEvent, recordEvents, recordEventsWith } from '../../core/domain-events.ts'
import type { Store } from '../../core/ports/store.ts'
import { ID_BLOCK } from '../../core/store/journal.ts'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import { storeKinds } from '../helpers/services.ts'
import { lastJournalId, organizationEvents, runEvents } from '../helpers/journal.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

const AT = 1_800_000_000_000

function newRunEvents(runId: string, count: number, firstSeq = 1, organizationId = 'org_1'): DomainEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    organizationId,
    workflowId: 'wf_1',
    runId,
    seq: firstSeq + i,
    type: i === count - 1 ? 'run.succeeded' : 'node.succeeded',
    nodeId: i === count - 1 ? null : `n${i}`,
    data: { runId, workflowId: 'wf_1', key: `n${i}`, result: { i, text: 'a "quoted" \u2028 line' } },
    at: AT + i,
  }))
}

const journalRows = (store: Store, runId: string) =>
  store.all<{ id: number; n: number; seq: number }>('SELECT id, n, seq FROM journal WHERE run_id = $1 ORDER BY id', [
    runId,
  ])

for (const kind of storeKinds()) {
  describe(`journal rows of several events (${kind})`, () => {
    let s: TestStore
    beforeAll(async () => {
      s = await openTestStore(kind)
      await s.store.migrate(MIGRATIONS)
    })
    afterAll(() => s.dispose())

    it("stores one write's events of a run in one row, with consecutive ids, and the events view shows each", async () => {
      const recorded = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_one', 6)))
      const ids = recorded.map((e) => e.id)
      expect(ids).toEqual(ids.map((_, i) => ids[0] + i))
      expect(await journalRows(s.store, 'run_one')).toEqual([{ id: ids[0], n: 6, seq: 1 }])
      const view = await s.store.all<{
        id: number
        seq: number
        type: string
        node_id: string | null
        data: string
        at: number
      }>('SELECT id, seq, type, node_id, data, at FROM events WHERE run_id = $1 ORDER BY id', ['run_one'])
      expect(
        view.map((r) => ({ ...r, id: Number(r.id), seq: Number(r.seq), at: Number(r.at), data: JSON.parse(r.data) })),
      ).toEqual(
        recorded.map((e) => ({
          id: e.id,
          seq: e.seq!,
          type: e.type,
          node_id: e.nodeId,
          data: { key: e.data.key, result: e.data.result },
          at: e.at,
        })),
      )
    })

    it('reads a run from every sequence number inside a row, exactly the events after it', async () => {
      const recorded = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_seq', 5)))
      await s.store.write((tx) => recordEvents(tx, newRunEvents('run_seq', 3, 6)))
      const all = (await runEvents(s.store, 'run_seq', 0)).map((e) => Number(e.seq))
      expect(all).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      for (let after = 0; after <= 8; after++) {
        const rest = await runEvents(s.store, 'run_seq', after)
        expect(rest.map((e) => Number(e.seq))).toEqual(all.slice(after))
      }
      expect((await runEvents(s.store, 'run_seq', 2))[0].type).toBe(recorded[2].type)
    })

    it('reads an organization from every id inside a row, exactly the events after it', async () => {
      const first = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_org', 4, 1, 'org_ids')))
      const second = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_org', 3, 5, 'org_ids')))
      const ids = [...first, ...second].map((e) => e.id)
      const before = ids[0] - 1
      for (const after of [before, ...ids]) {
        const rest = await organizationEvents(s.store, 'org_ids', after)
        expect(rest.map((e) => Number(e.id))).toEqual(ids.filter((id) => id > after))
      }
    })

    it(`splits a write of more than ${ID_BLOCK} events into rows whose ids keep increasing`, async () => {
      const count = ID_BLOCK * 2 + 5
      const recorded = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_big', count)))
      const rows = await journalRows(s.store, 'run_big')
      expect(rows.map((r) => r.n)).toEqual([ID_BLOCK, ID_BLOCK, 5])
      expect(rows.map((r) => r.seq)).toEqual([1, ID_BLOCK + 1, 2 * ID_BLOCK + 1])
      const ids = recorded.map((e) => e.id)
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1])
      expect((await runEvents(s.store, 'run_big', 0, 10_000)).map((e) => Number(e.id))).toEqual(ids)
    })

    it('gives a run and the workflow event after it rows of their own, ids increasing across them', async () => {
      const paused: DomainEvent = {
        organizationId: 'org_1',
        workflowId: 'wf_1',
        runId: null,
        seq: null,
        type: 'workflow.paused',
        nodeId: null,
        data: { workflowId: 'wf_1', reason: 'consecutive_failures' },
        at: AT,
      }
      const recorded = await s.store.write((tx) => recordEvents(tx, [...newRunEvents('run_mixed', 3), paused]))
      expect((await journalRows(s.store, 'run_mixed')).map((r) => r.n)).toEqual([3])
      expect(recorded[3].id).toBeGreaterThan(recorded[2].id)
      const [back] = (await organizationEvents(s.store, 'org_1', recorded[2].id)).filter(
        (e) => e.type === 'workflow.paused',
      )
      expect(Number(back.id)).toBe(recorded[3].id)
    })

    it('reads rows stored one event each, as before, between packed rows', async () => {
      const before = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_old', 2, 1, 'org_old')))
      const next = (await lastJournalId(s.store)) + 1
      await s.store.run(
        'INSERT INTO journal (id, organization_id, workflow_id, run_id, seq, type, node_id, data, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        [next, 'org_old', 'wf_1', 'run_old', 3, 'run.succeeded', null, '{"runId":"run_old","workflowId":"wf_1"}', AT],
      )
      const after = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_old2', 2, 1, 'org_old')))
      expect(after[0].id).toBeGreaterThan(next)
      const read = await organizationEvents(s.store, 'org_old', 0)
      expect(read.map((e) => Number(e.id))).toEqual([...before.map((e) => e.id), next, ...after.map((e) => e.id)])
      expect((await runEvents(s.store, 'run_old', 2)).map((e) => e.type)).toEqual(['run.succeeded'])
    })

    it("runs the statements given with a run's rows in the same write, and answers what each changed", async () => {
      const count = () =>
        s.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM installation_settings WHERE name LIKE 'insert-with-%'")
      const also = (key: string) => ({
        sql: 'INSERT INTO installation_settings (name, value, updated_at) VALUES ($1, $2, $3)',
        params: [key, '"x"', AT],
      })
      const untouched = { sql: 'UPDATE installation_settings SET value = $1 WHERE name = $2', params: ['"y"', 'none'] }
      const { recorded, changed } = await s.store.write((tx) =>
        recordEventsWith(tx, newRunEvents('run_with', 3), [also('insert-with-a'), untouched, also('insert-with-b')]),
      )
      expect(changed).toEqual([1, 0, 1])
      expect(recorded.map((e) => e.id)).toEqual(recorded.map((_, i) => recorded[0].id + i))
      expect(await journalRows(s.store, 'run_with')).toEqual([{ id: recorded[0].id, n: 3, seq: 1 }])
      expect(Number((await count())!.n)).toBe(2)
      // A statement that fails takes the rows with it: nothing of the write is stored.
      await expect(
        s.store.write((tx) => recordEventsWith(tx, newRunEvents('run_with_not', 2), [also('insert-with-a')])),
      ).rejects.toThrow()
      expect(await journalRows(s.store, 'run_with_not')).toEqual([])
      expect(Number((await count())!.n)).toBe(2)
      // Without events, the statements still run.
      const none = await s.store.write((tx) => recordEventsWith(tx, [], [also('insert-with-c')]))
      expect(none).toEqual({ recorded: [], changed: [1] })
    })

    it.if(kind === 'postgres')('refuses a statement whose parameters do not match its placeholders', async () => {
      const wrong = { sql: 'UPDATE installation_settings SET value = $1 WHERE name = $2', params: ['"y"'] }
      await expect(
        s.store.write((tx) => recordEventsWith(tx, newRunEvents('run_with_wrong', 1), [wrong])),
      ).rejects.toThrow('a statement uses $2 with 1 parameters')
      expect(await journalRows(s.store, 'run_with_wrong')).toEqual([])
    })

    it('never gives two events one id when two processes write at once', async () => {
      const other = s.reopen()
      const writes = Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? other : s.store).write((tx) => recordEvents(tx, newRunEvents(`run_race_${i}`, 1 + (i % 7))), {
          concurrent: true,
        }),
      )
      const ids = (await Promise.all(writes)).flat().map((e) => e.id)
      expect(new Set(ids).size).toBe(ids.length)
      const rows = await s.store.all<{ id: number; n: number }>(
        "SELECT id, n FROM journal WHERE run_id LIKE 'run_race_%' ORDER BY id",
      )
      for (let i = 1; i < rows.length; i++) expect(rows[i].id).toBeGreaterThan(rows[i - 1].id + rows[i - 1].n - 1)
    })
  })
}

for (const kind of storeKinds()) {
  describe(`the journal after an upgrade (${kind})`, () => {
    let s: TestStore
    beforeAll(async () => {
      s = await openTestStore(kind)
      await s.store.migrate(MIGRATIONS.filter((m) => m.version < 47))
    })
    afterAll(() => s.dispose())

    it('keeps the events stored before, at their ids, and numbers new ones after them', async () => {
      for (let seq = 1; seq <= 3; seq++)
        await s.store.run(
          'INSERT INTO events (organization_id, workflow_id, run_id, seq, type, node_id, data, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
          ['org_up', 'wf_1', 'run_up', seq, seq === 3 ? 'run.succeeded' : 'node.succeeded', null, '{}', AT],
        )
      const old = (await s.store.all<{ id: number }>('SELECT id FROM events ORDER BY id')).map((r) => Number(r.id))
      await s.store.migrate(MIGRATIONS)
      const recorded = await s.store.write((tx) => recordEvents(tx, newRunEvents('run_new', 3, 1, 'org_up')))
      expect(recorded[0].id).toBeGreaterThan(old[2])
      const all = [...old, ...recorded.map((e) => e.id)]
      for (const after of [0, ...all]) {
        const rest = await organizationEvents(s.store, 'org_up', after)
        expect(rest.map((e) => Number(e.id))).toEqual(all.filter((id) => id > after))
      }
      expect((await runEvents(s.store, 'run_up', 1)).map((e) => Number(e.seq))).toEqual([2, 3])
      expect(
        (await s.store.all<{ id: number }>("SELECT id FROM events WHERE organization_id = 'org_up' ORDER BY id")).map(
          (r) => Number(r.id),
        ),
      ).toEqual(all)
    })
  })
}
