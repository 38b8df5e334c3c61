/** Runs that wait: durable delays, waits resumed by API or by integration events, approvals, timeouts and cancellation. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { OTHER_WALLET as OTHER, postSource, transfer, WALLET, webhookSecret } from '../integrations/helpers.ts'
import { createSkewedClock } from '../helpers/clock.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear, runAndWait, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`waiting runs (${kind})`, () => {
    let t: TestSystem
    // Real time, moved on when a test says so: a durable delay is then due without waiting it out.
    const clock = createSkewedClock()
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
    })
    afterAll(() => t.close())

    const start = async (workflowId: string, payload: Record<string, unknown> = {}) =>
      (await t.call('POST', `/v1/workflows/${workflowId}/run`, { body: { payload } })).body.data.runId as string

    it('puts a delayed run away as a durable timer and finishes it on time', async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          {
            pause: { type: 'delay', payload: { delayMs: 60_000 } },
            after: { type: 'log', payload: { message: 'slept {{pause.result.delayedMs}} for {{$trigger.body.who}}' } },
          },
          ['pause', 'after'],
        ),
      })
      const started = clock.now()
      const runId = await start(w.id, { who: 'ada-lovelace-1815', note: 'kept-once-in-the-row' })
      const waiting = await waitForRun(t, runId, (r) => r.status === 'waiting')
      expect(waiting.nodes.pause.status).toBe('scheduled')
      const timers = await t.system.store.all<{ fire_at: number; kind: string }>(
        'SELECT fire_at, kind FROM timers WHERE run_id = $1',
        [runId],
      )
      expect(timers).toHaveLength(1)
      expect(timers[0].kind).toBe('wake')
      expect(Number(timers[0].fire_at)).toBeGreaterThanOrEqual(started + 60_000)
      expect(t.system.engine.executor.active).toBe(0)
      // Not before its time: nothing is due until the clock reaches the delay.
      expect(await t.system.engine.timers.tick()).toBe(0)
      expect((await t.call('GET', `/v1/runs/${runId}`)).body.data.status).toBe('waiting')
      clock.skip(60_000)
      await t.system.engine.timers.tick()
      const done = await waitForRun(t, runId)
      expect(done.status).toBe('success')
      // Restored from the store: the trigger event, which the stored snapshot leaves to the row, is back.
      expect(done.nodes.after.result.message).toBe('slept 60000 for ada-lovelace-1815')
      expect(done.nodes.root.result.body).toEqual({ who: 'ada-lovelace-1815', note: 'kept-once-in-the-row' })
      const [row] = await t.system.store.all<{ snapshot: string; trigger_event: string }>(
        'SELECT snapshot, trigger_event FROM runs WHERE id = $1',
        [runId],
      )
      expect(row.trigger_event).toContain('kept-once-in-the-row')
      expect(row.snapshot).not.toContain('kept-once-in-the-row')
      expect(await t.system.store.all('SELECT * FROM timers WHERE run_id = $1', [runId])).toHaveLength(0)
      const types = (
        await t.system.store.all<{ type: string }>('SELECT type FROM events WHERE run_id = $1 ORDER BY seq', [runId])
      ).map((e) => e.type)
      expect(types).toContain('run.waiting')
      expect(types).toContain('run.resumed')
    })

    it('resumes a wait with data through the API, on the "resumed" branch', async () => {
      const w = await createWorkflow(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['hold'] },
            hold: { type: 'wait', payload: { timeoutMs: 60_000 }, children: ['got', 'late'] },
            got: { type: 'log', branch: 'resumed', payload: { message: 'got {{hold.result.data.code}}' } },
            late: { type: 'log', branch: 'timed_out', payload: { message: 'late' } },
          },
        },
      })
      const runId = await start(w.id)
      await waitForRun(t, runId, (r) => r.status === 'waiting')
      expect((await t.call('POST', `/v1/runs/${runId}/nodes/got/resume`, { body: { data: {} } })).status).toBe(409)
      const r = await t.call('POST', `/v1/runs/${runId}/nodes/hold/resume`, { body: { data: { code: 42 } } })
      expect(r.status).toBe(200)
      const done = await waitForRun(t, runId)
      expect(done.nodes.hold.result).toEqual({ resumed: true, data: { code: 42 } })
      expect(done.nodes.got.result.message).toBe('got 42')
      expect(done.nodes.late.status).toBe('skipped')
      expect((await t.call('POST', `/v1/runs/${runId}/nodes/hold/resume`, { body: { data: {} } })).status).toBe(409)
    })

    it('times a wait out onto the "timed_out" branch', async () => {
      const w = await createWorkflow(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['hold'] },
            hold: { type: 'wait', payload: { timeoutMs: 300 }, children: ['late'] },
            late: { type: 'log', branch: 'timed_out', payload: { message: 'late' } },
          },
        },
      })
      const done = await runAndWait(t, w.id)
      expect(done.status).toBe('success')
      expect(done.nodes.hold.result).toEqual({ resumed: false, data: null })
      expect(done.nodes.late.status).toBe('success')
    })

    it('takes approvals by key or by the workflow secret', async () => {
      const w = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['ok'] },
            ok: { type: 'approval', payload: { message: 'ship it?' }, children: ['yes', 'no'] },
            yes: { type: 'log', branch: 'approved', payload: { message: 'shipped' } },
            no: { type: 'log', branch: 'rejected', payload: { message: 'held' } },
          },
        },
      })
      const first = await start(w.id)
      await waitForRun(t, first, (r) => r.status === 'waiting')
      const anonymous = await t.call('POST', `/v1/runs/${first}/nodes/ok/resume`, {
        key: null,
        body: { data: { approved: true } },
      })
      expect(anonymous.status).toBe(400)
      const wrong = await t.call('POST', `/v1/runs/${first}/nodes/ok/resume?secret=nope`, {
        key: null,
        body: { data: { approved: true } },
      })
      expect(wrong.status).toBe(401)
      const bySecret = await t.call('POST', `/v1/runs/${first}/nodes/ok/resume?secret=${w.triggerSecret}`, {
        key: null,
        body: { data: { approved: true } },
      })
      expect(bySecret.status).toBe(200)
      expect((await waitForRun(t, first)).nodes.yes.status).toBe('success')

      const second = await start(w.id)
      await waitForRun(t, second, (r) => r.status === 'waiting')
      await t.call('POST', `/v1/runs/${second}/nodes/ok/resume`, {
        body: { data: { approved: false, reason: 'not today' } },
      })
      const rejected = await waitForRun(t, second)
      expect(rejected.nodes.ok.result).toEqual({ approved: false, data: { approved: false, reason: 'not today' } })
      expect(rejected.nodes.no.status).toBe('success')
      expect(rejected.nodes.yes.status).toBe('skipped')
    })

    it('resumes a wait for a trigger type with a matching integration event, and starts the other matching workflows, not its own', async () => {
      const secret = await webhookSecret(t)
      const hash = (digit: string) => `0x${digit.repeat(64)}`
      const waiting = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'erc20-receive', payload: { chainId: 1, address: WALLET }, children: ['hold'] },
            hold: {
              type: 'wait',
              payload: {
                triggerType: 'erc20-receive',
                triggerConfig: { transactionHash: hash('b') },
                timeoutMs: 60_000,
              },
              children: ['paid'],
            },
            paid: { type: 'log', branch: 'resumed', payload: { message: 'second {{hold.result.data.amount}}' } },
          },
        },
      })
      const watcher = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'erc20-receive', payload: { chainId: 1, address: WALLET } } },
        },
      })
      const first = await postSource(t, t.orgId, secret, {
        id: 'wait-1',
        type: 'erc20-receive',
        data: transfer(WALLET, '100', 'a'),
      })
      expect(first.body.action).toBe('triggered')
      expect(first.body.runIds).toHaveLength(2)
      const runs = await Promise.all(
        first.body.runIds.map((id: string) => waitForRun(t, id, (r) => r.status !== 'running')),
      )
      const held = runs.find((r) => r.workflowId === waiting.id)!
      expect(held.status).toBe('waiting')
      // Another transfer to the wallet: not the awaited one, so it starts both workflows again and resumes nothing.
      const other = await postSource(t, t.orgId, secret, {
        id: 'wait-2',
        type: 'erc20-receive',
        data: transfer(WALLET, '5', 'c'),
      })
      expect(other.body.runIds).toHaveLength(2)
      expect(other.body.runIds).not.toContain(held.id)
      const alsoHeld = (
        await Promise.all(other.body.runIds.map((id: string) => waitForRun(t, id, (r) => r.status !== 'running')))
      ).find((r) => r.workflowId === waiting.id)!
      expect((await waitForRun(t, held.id, (r) => r.status !== 'running')).status).toBe('waiting')

      const second = await postSource(t, t.orgId, secret, {
        id: 'wait-3',
        type: 'erc20-receive',
        data: transfer(WALLET, '250', 'b'),
      })
      expect(second.body.action).toBe('triggered')
      expect(second.body.runIds).toHaveLength(3)
      expect(second.body.runIds).toContain(held.id)
      expect(second.body.runIds).toContain(alsoHeld.id)
      const started = second.body.runIds.filter((id: string) => id !== held.id && id !== alsoHeld.id)
      expect((await waitForRun(t, started[0])).workflowId).toBe(watcher.id)
      const done = await waitForRun(t, held.id)
      expect(done.nodes.hold.result).toEqual({ resumed: true, data: transfer(WALLET, '250', 'b') })
      expect(done.nodes.paid.result.message).toBe('second 250')
      expect(await t.system.store.all('SELECT * FROM waits WHERE run_id = $1', [held.id])).toHaveLength(0)
      const again = await postSource(t, t.orgId, secret, {
        id: 'wait-4',
        type: 'erc20-receive',
        data: transfer(OTHER, '1', 'b'),
      })
      expect(again.body).toMatchObject({ action: 'skipped', reason: 'no_matching_workflow' })
    })

    it('decides an approval with an event that names its run', async () => {
      const secret = await webhookSecret(t)
      const w = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['ok'] },
            ok: { type: 'approval', payload: { message: 'ship it?' }, children: ['yes', 'no'] },
            yes: { type: 'log', branch: 'approved', payload: { message: 'shipped by {{ok.result.data.by}}' } },
            no: { type: 'log', branch: 'rejected', payload: { message: 'held' } },
          },
        },
      })
      const runId = await start(w.id)
      await waitForRun(t, runId, (r) => r.status === 'waiting')
      const r = await postSource(t, t.orgId, secret, {
        id: 'decision-1',
        type: 'approval',
        runId,
        data: { approved: true, by: 'ada' },
      })
      expect(r.body).toMatchObject({ action: 'resumed', runIds: [runId] })
      const done = await waitForRun(t, runId)
      expect(done.nodes.yes.result.message).toBe('shipped by ada')
      const late = await postSource(t, t.orgId, secret, {
        id: 'decision-2',
        type: 'approval',
        runId,
        data: { approved: false },
      })
      expect(late.body).toMatchObject({ action: 'skipped', reason: 'not_waiting', runIds: [] })
    })

    it('cancels a waiting run and a running one; a finished run cannot be cancelled', async () => {
      const w = await createWorkflow(t, {
        definition: linear({ pause: { type: 'delay', payload: { delayMs: 60_000 } } }, ['pause']),
      })
      const runId = await start(w.id)
      await waitForRun(t, runId, (r) => r.status === 'waiting')
      const cancelled = await t.call('POST', `/v1/runs/${runId}/cancel`)
      expect(cancelled.status).toBe(200)
      expect(cancelled.body.data.status).toBe('cancelled')
      const run = (await t.call('GET', `/v1/runs/${runId}`)).body.data
      expect(run.nodes.pause.status).toBe('cancelled')
      expect(await t.system.store.all('SELECT * FROM timers WHERE run_id = $1', [runId])).toHaveLength(0)
      expect((await t.call('POST', `/v1/runs/${runId}/cancel`)).status).toBe(409)

      const busy = await createWorkflow(t, {
        definition: linear(
          {
            spin: {
              type: 'code-transform',
              payload: {
                code: 'function transform() { var s = Date.now(); while (Date.now() - s < 800) {} return 1 }',
              },
            },
          },
          ['spin'],
        ),
      })
      const busyRun = await start(busy.id)
      await waitForRun(t, busyRun, (r) => r.nodes?.spin?.status === 'running')
      const stopped = await t.call('POST', `/v1/runs/${busyRun}/cancel`)
      expect(stopped.body.data.status).toBe('cancelled')
      expect((await t.call('GET', `/v1/runs/${busyRun}`)).body.data.nodes.spin.status).toBe('cancelled')
    })

    it('keeps waiting runs out of memory: many delayed runs, no live actors', async () => {
      const w = await createWorkflow(t, {
        definition: linear({ pause: { type: 'delay', payload: { delayMs: 60_000 } } }, ['pause']),
      })
      const ids = await Promise.all(Array.from({ length: 50 }, () => start(w.id)))
      for (const id of ids) await waitForRun(t, id, (r) => r.status === 'waiting')
      await t.system.engine.executor.idle()
      expect(t.system.engine.executor.active).toBe(0)
      const counts = (await t.call('GET', `/v1/runs/status-counts?workflowId=${w.id}`)).body.data
      expect(counts.counts.waiting).toBe(50)
      expect(counts.total).toBe(50)
    })
  })
}
