/**
 * The run machine alone, as the engine drives it, in µs per run: where XState's share of a run's
 * server CPU goes. Three runs of the sustained benchmark's shape (trigger → set-variable → log,
 * with a webhook's trigger event), their node handlers stubbed to answer at once so that what is
 * measured is the machine and the run's own state:
 * - pure: every node answers synchronously, so the run ends while its actor is created, as a
 *   run that ends at admission does (finish-at-admission.ts);
 * - async: its middle node answers with a promise, as an `http-request` does: the actor invokes
 *   a node, is persisted while it waits (the journal's write on the next tick), settles it,
 *   ends and is persisted again (executor-live.ts);
 * - restored: its middle node waits for an event; the run is persisted and stopped, then read
 *   back from its stored form, restored, resumed by the event, ended and persisted.
 * Each part is timed on its own in the main thread's CPU time, over many runs after as many runs
 * of warm-up; each figure is the median of five rounds. `state.ts alone` is the run's own
 * transitions (startState, the chain of nodes) without XState: what a run would cost with no
 * machine at all. XState's own getPersistedSnapshot is timed beside the engine's persistedRun,
 * for comparison (not in the total). Beside the runs, a bare machine: its actor made, started and
 * stopped, and what one more emitted event and one more enqueued `assign` add to it.
 *   bun bench/xstate.ts [--scale 0.5]
 */
import { dlopen, FFIType, ptr } from 'bun:ffi'
import { createActor, enqueueActions, setup } from 'xstate'
import type { Definition } from '../core/domain/workflow.ts'
import { createRunMachine, type RunActor, type RunMachine, statusOf } from '../runtime/engine/machine.ts'
import { chain, type MachineParts } from '../runtime/engine/machine-steps.ts'
import { compilePlan, type Plan } from '../runtime/engine/plan.ts'
import { startState } from '../runtime/engine/state.ts'
import { persistedRun, restoreSnapshot, storedSnapshot } from '../runtime/engine/stored-snapshot.ts'
import type { JournalEvent, NodeRunner, Outcome } from '../runtime/engine/types.ts'
import type { Result } from './store-writes.ts'

const DEFINITION = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['note'] },
    note: { type: 'set-variable', payload: { name: 'order', value: '{{$trigger.body.order.id}}' }, children: ['log'] },
    log: { type: 'log', payload: { message: 'order {{$vars.order}}' } },
  },
} as unknown as Definition

/** A webhook's trigger event, as the sustained benchmark's load client sends it. */
const TRIGGER = {
  type: 'manual',
  body: { order: { id: 'ord_1234567890', total: 42.5, items: [{ sku: 'a-1', qty: 2 }] } },
  headers: {
    'content-type': 'application/json',
    'user-agent': 'bench-load-client/1.0',
    host: '127.0.0.1:3000',
    'content-length': '84',
  },
  receivedAt: '2026-01-01T00:00:00.000Z',
}

type Middle = 'sync' | 'async' | 'wait'

/** Handlers stubbed as the real ones answer: set-variable with its variable, log with its message. */
function runnerFor(middle: Middle): NodeRunner {
  const outcomeOf = (nodeId: string): Outcome =>
    nodeId === 'note'
      ? { kind: 'success', result: { order: 'ord_1234567890' }, vars: { order: 'ord_1234567890' }, input: {} }
      : { kind: 'success', result: { message: 'order ord_1234567890' }, input: {} }
  return {
    execute(_plan, state) {
      const nodeId = state.current!.frame.nodeId
      if (nodeId !== 'note' || middle === 'sync') return outcomeOf(nodeId)
      if (middle === 'wait') return { kind: 'wait', wait: { triggerType: 'order.paid' } }
      return { pending: Promise.resolve(outcomeOf(nodeId)), abort() {} }
    },
    resume: (_plan, task) => Promise.resolve(outcomeOf(task.state.current!.frame.nodeId)),
  }
}

const input = (i: number) => ({
  runId: `run_${i}`,
  workflowId: 'wf_bench',
  organizationId: 'org_bench',
  workflowVersion: 1,
  triggerNodeId: 'root',
  trigger: TRIGGER,
  vars: {},
  props: {},
})

const libc = dlopen('libc.so.6', { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } })
const CLOCK_THREAD_CPUTIME_ID = 3
const timespec = new BigInt64Array(2)
const timespecAt = ptr(timespec)

/**
 * The main thread's CPU time in µs: the machine may be shared, so wall time would count others'
 * work, and the process's time would count the compiler's and the collector's threads.
 */
function cpuMicros(): number {
  libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, timespecAt)
  return Number(timespec[0]) * 1e6 + Number(timespec[1]) / 1000
}

/** What reading the CPU time costs, taken off every lap. */
const LAP_COST = (() => {
  const n = 20_000
  const t0 = cpuMicros()
  for (let i = 0; i < n; i++) cpuMicros()
  return (cpuMicros() - t0) / n
})()

/** CPU time per part, summed over the measured runs. */
class Parts {
  readonly us = new Map<string, number>()
  private at = 0
  start() {
    this.at = cpuMicros()
  }
  lap(part: string) {
    const now = cpuMicros()
    this.us.set(part, (this.us.get(part) ?? 0) + (now - this.at - LAP_COST))
    this.at = now
  }
}

interface Bench {
  plan: Plan
  machine: RunMachine
  parts: MachineParts
}

function benchOf(middle: Middle): Bench {
  const plan = compilePlan(DEFINITION, `bench-${middle}`)
  const runner = runnerFor(middle)
  const branchesOf = () => undefined
  const now = () => 1_700_000_000_000
  return {
    plan,
    machine: createRunMachine(plan, runner, branchesOf, now),
    parts: { plan, runner, branchesOf, now, started: new WeakMap() },
  }
}

/** What the journal stores of an actor, as executor-live.ts and finish-at-admission.ts read it. */
function persist(actor: RunActor, t?: Parts, label = ''): string {
  const snapshot = actor.getSnapshot()
  statusOf(snapshot)
  if (t) {
    // XState's own, timed beside the engine's for comparison (and not counted in the total).
    actor.getPersistedSnapshot()
    t.lap(`${label}(XState's getPersistedSnapshot, for comparison)`)
  }
  const persisted = persistedRun(snapshot)
  t?.lap(`${label}persisted snapshot`)
  const stored = storedSnapshot(persisted)
  t?.lap(`${label}stored (JSON)`)
  return stored
}

function pureRun(b: Bench, i: number, t: Parts) {
  t.start()
  const step = startState(input(i), b.plan, b.parts.branchesOf, b.parts.now())
  t.lap('startState (ours)')
  const emitted: JournalEvent[] = [...step.events]
  const actor = createActor(b.machine, { input: step.state }) as RunActor
  t.lap('createActor: the whole run (chain, assign, emits, final)')
  actor.on('*', (e) => emitted.push(e))
  actor.start()
  t.lap('on + start')
  const stored = persist(actor, t)
  actor.stop()
  t.lap('stop')
  return stored
}

async function asyncRun(b: Bench, i: number, t: Parts) {
  t.start()
  const step = startState(input(i), b.plan, b.parts.branchesOf, b.parts.now())
  t.lap('startState (ours)')
  const emitted: JournalEvent[] = [...step.events]
  const actor = createActor(b.machine, { input: step.state }) as RunActor
  t.lap('createActor: chain to the async node')
  let done!: () => void
  const ended = new Promise<void>((resolve) => {
    done = resolve
  })
  actor.on('*', (e) => emitted.push(e))
  actor.subscribe({ next: () => {}, complete: () => done() })
  actor.start()
  t.lap('on + subscribe + start (invokes the node)')
  persist(actor, t, 'while running: ')
  await ended
  t.lap('onDone: settle, chain, final')
  persist(actor, t, 'at the end: ')
  actor.stop()
  t.lap('stop')
}

async function restoredRun(b: Bench, i: number, t: Parts) {
  const step = startState(input(i), b.plan, b.parts.branchesOf, b.parts.now())
  const first = createActor(b.machine, { input: step.state }) as RunActor
  first.start()
  const row = persist(first)
  first.stop()
  const triggerEvent = JSON.stringify(TRIGGER)
  t.start()
  const snapshot = restoreSnapshot(row, triggerEvent)
  t.lap('restoreSnapshot (JSON.parse)')
  const actor = createActor(b.machine, { snapshot } as never) as RunActor
  t.lap('createActor from the snapshot')
  let done!: () => void
  const ended = new Promise<void>((resolve) => {
    done = resolve
  })
  actor.on('*', () => {})
  actor.subscribe({ next: () => {}, complete: () => done() })
  actor.start()
  t.lap('on + subscribe + start')
  actor.send({ type: 'RESUME', key: 'note', data: { paid: true }, inboxId: 'inb_1' })
  t.lap('send RESUME (invokes the resume)')
  await ended
  t.lap('onDone: settle, chain, final')
  persist(actor, t, 'at the end: ')
  actor.stop()
  t.lap('stop')
}

/** The pure run's own work without XState: startState and the chain of its nodes. */
function pureWithoutMachine(b: Bench, i: number, t: Parts) {
  t.start()
  const step = startState(input(i), b.plan, b.parts.branchesOf, b.parts.now())
  chain(b.parts, step.state)
  t.lap('startState + chain')
}

/** Rounds of runs per figure: each part's figure is its median over the rounds. */
const ROUNDS = 5

async function measure(
  label: string,
  runs: number,
  one: (i: number, t: Parts) => unknown,
): Promise<Array<{ part: string; us: number }>> {
  for (let i = 0; i < runs; i++) await one(i, new Parts())
  const perRound = Math.ceil(runs / ROUNDS)
  const rounds: Parts[] = []
  for (let r = 0; r < ROUNDS; r++) {
    Bun.gc(true)
    const t = new Parts()
    for (let i = 0; i < perRound; i++) await one(i, t)
    rounds.push(t)
  }
  const rows = [...rounds[0].us.keys()].map((part) => ({
    part: `${label}: ${part}`,
    us: median(rounds.map((t) => (t.us.get(part) ?? 0) / perRound)),
  }))
  rows.push({
    part: `${label}: total`,
    us: rows.filter((r) => !r.part.includes('for comparison')).reduce((sum, r) => sum + r.us, 0),
  })
  return rows
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]
}

/** A bare machine whose one state's entry enqueues `emits` emitted events and `assigns` assigns. */
function bareActionCost(runs: number, emits: number, assigns: number): number {
  const machine = setup({
    types: { context: {} as Record<string, unknown>, emitted: {} as { type: string } },
  }).createMachine({
    context: ({ input }) => input as Record<string, unknown>,
    initial: 'a',
    states: {
      a: {
        entry: enqueueActions(({ enqueue }) => {
          for (let i = 0; i < assigns; i++) enqueue.assign(({ context }) => ({ ...context, n: i }))
          for (let i = 0; i < emits; i++) enqueue.emit({ type: 'e' })
        }),
      },
    },
  })
  const context = { ...input(0), nodes: { a: 1, b: 2, c: 3 }, stack: [], loops: {}, current: null }
  for (let i = 0; i < runs; i++) createActor(machine, { input: context }).start().stop()
  const t0 = cpuMicros()
  for (let i = 0; i < runs; i++) {
    const actor = createActor(machine, { input: context })
    actor.on('*', () => {})
    actor.start()
    actor.stop()
  }
  return (cpuMicros() - t0) / runs
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const runs = Math.max(2000, Math.round(20_000 * (options.scale ?? 1)))
  const pure = benchOf('sync')
  const async = benchOf('async')
  const waits = benchOf('wait')
  const rows = [
    ...(await measure('pure', runs, (i, t) => pureRun(pure, i, t))),
    ...(await measure('pure without XState (state.ts alone)', runs, (i, t) => pureWithoutMachine(pure, i, t))),
    ...(await measure('async', runs, (i, t) => asyncRun(async, i, t))),
    ...(await measure('restored', runs, (i, t) => restoredRun(waits, i, t))),
  ]
  const none = bareActionCost(runs, 0, 0)
  rows.push({ part: 'bare machine: create, start, stop', us: none })
  rows.push({ part: 'bare machine: one more emitted event', us: (bareActionCost(runs, 8, 0) - none) / 8 })
  rows.push({ part: 'bare machine: one more enqueued assign', us: (bareActionCost(runs, 0, 8) - none) / 8 })
  const stored = pureRun(pure, 0, new Parts()).length
  rows.push({ part: 'pure: stored snapshot size', us: stored })
  return rows.map((r) => ({
    name: `xstate ${r.part}`,
    value: Number(r.us.toFixed(2)),
    unit: r.part.endsWith('size') ? 'bytes' : 'µs',
  }))
}

if (import.meta.main) {
  const at = process.argv.indexOf('--scale')
  for (const r of await run({ scale: at > 0 ? Number(process.argv[at + 1]) : 1 }))
    console.log(`${r.name.padEnd(72)} ${String(r.value).padStart(8)} ${r.unit}`)
}
