/**
 * Properties of a run's lifecycle, on the run machine with scripted nodes: chains whose nodes
 * succeed, fail, fail tolerated (onError: continue) or wait, sent any sequence of resumes, timers
 * (for the waiting node or another) and cancels. Whatever happens, a run that ended never changes
 * again, ends exactly once with the terminal event of its status, and its status and its last
 * run event always tell the same story; the statuses and the terminal events map one to one,
 * as core/domain says they do.
 */
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { createActor, waitFor } from 'xstate'
import {
  isTerminal,
  isTerminalRunEvent,
  runStatusOf,
  TERMINAL_RUN_EVENTS,
  TERMINAL_STATUSES,
} from '../../../core/domain/run-lifecycle.ts'
import type { Definition } from '../../../core/domain/workflow.ts'
import { createRunMachine, statusOf } from '../../../runtime/engine/machine.ts'
import { compilePlan } from '../../../runtime/engine/plan.ts'
import { finalStatus, startState } from '../../../runtime/engine/state.ts'
import type { NodeRunner, Outcome, RunCommand } from '../../../runtime/engine/types.ts'
import { runInput } from '../../helpers/run-input.ts'

type Behaviour = 'succeed' | 'fail' | 'tolerated' | 'wait'
type Command = { type: 'RESUME' | 'TIMER' | 'CANCEL'; ofCurrent: boolean }

const behaviour = fc.constantFrom<Behaviour>('succeed', 'fail', 'tolerated', 'wait')
const command: fc.Arbitrary<Command> = fc.record({
  type: fc.constantFrom('RESUME', 'TIMER', 'CANCEL'),
  ofCurrent: fc.boolean(),
})
const script = fc.record({
  nodes: fc.array(behaviour, { minLength: 1, maxLength: 5 }),
  commands: fc.array(command, { maxLength: 8 }),
})

function definitionOf(nodes: readonly Behaviour[]): Definition {
  const all: Record<string, unknown> = { root: { type: 'manual', children: ['n0'] } }
  nodes.forEach((b, i) => {
    all[`n${i}`] = {
      type: 'log',
      payload: {},
      children: i + 1 < nodes.length ? [`n${i + 1}`] : [],
      ...(b === 'tolerated' ? { onError: 'continue' } : {}),
    }
  })
  return { triggerNodeIds: ['root'], nodes: all } as unknown as Definition
}

/** Starts a run of `nodes` as the executor does; `emitted` gathers every event, the start's first. */
function startRun(nodes: readonly Behaviour[]) {
  const plan = compilePlan(definitionOf(nodes), `lifecycle-${nodes.join('-')}`)
  const outcome = (nodeId: string): Outcome => {
    const b = nodes[Number(nodeId.slice(1))]
    if (b === 'succeed') return { kind: 'success', result: nodeId }
    if (b === 'wait') return { kind: 'wait', wait: { until: 1_000 } }
    return { kind: 'failure', error: `${nodeId} failed`, retryable: false }
  }
  const runner: NodeRunner = {
    execute: (_plan, state) => outcome(state.current!.frame.nodeId),
    resume: async () => ({ kind: 'success', result: 'resumed' }),
  }
  const first = startState(runInput(), plan, () => undefined, 0)
  const emitted: string[] = first.events.map((e) => e.type)
  const actor = createActor(
    createRunMachine(
      plan,
      runner,
      () => undefined,
      () => 0,
    ),
    { input: first.state },
  )
  actor.on('*', (e) => emitted.push(e.type))
  actor.start()
  return { actor, emitted }
}

type Run = ReturnType<typeof startRun>

/** Where a run stands once nothing is in flight: waiting, or ended. */
const settled = (run: Run) => waitFor(run.actor, (s) => s.status === 'done' || statusOf(s) === 'waiting')

function eventOf(run: Run, c: Command): RunCommand {
  const current = run.actor.getSnapshot().context.current?.key ?? 'n0'
  const key = c.ofCurrent ? current : `${current}-elsewhere`
  if (c.type === 'CANCEL') return { type: 'CANCEL', reason: 'asked' }
  return c.type === 'RESUME' ? { type: 'RESUME', key, data: {} } : { type: 'TIMER', key, kind: 'wake' }
}

const runEvents = (emitted: readonly string[]) => emitted.filter((type) => type.startsWith('run.'))

/** The run event each terminal status ended with, and the reverse, across every run tried. */
function pairings() {
  const eventsOf = new Map<string, Set<string>>()
  const statusesOf = new Map<string, Set<string>>()
  return {
    eventsOf,
    statusesOf,
    add(status: string, event: string) {
      eventsOf.set(status, (eventsOf.get(status) ?? new Set()).add(event))
      statusesOf.set(event, (statusesOf.get(event) ?? new Set()).add(status))
    },
  }
}

describe("a run's lifecycle, whatever happens to it", () => {
  it('never changes once ended, ends once with the event of its status, and its status and last run event agree', async () => {
    const seen = pairings()
    await fc.assert(
      fc.asyncProperty(script, async ({ nodes, commands }) => {
        const run = startRun(nodes)
        await settled(run)
        for (const c of commands) {
          const before = run.actor.getSnapshot()
          const emittedBefore = run.emitted.length
          run.actor.send(eventOf(run, c))
          await settled(run)
          const after = run.actor.getSnapshot()
          if (before.status === 'done') {
            // An ended run: nothing moves, nothing is said.
            expect(after.value).toEqual(before.value)
            expect(after.context).toEqual(before.context)
            expect(run.emitted.length).toBe(emittedBefore)
          }
        }
        const snapshot = run.actor.getSnapshot()
        const status = statusOf(snapshot)
        const events = runEvents(run.emitted)
        const terminal = events.filter(isTerminalRunEvent)
        expect(isTerminal(status)).toBe(snapshot.status === 'done')
        if (snapshot.status === 'done') {
          expect(terminal).toHaveLength(1)
          expect(events.at(-1)).toBe(terminal[0])
          seen.add(status, terminal[0])
          expect(runStatusOf(terminal[0])).toBe(status)
          if (status !== 'cancelled') expect<string>(finalStatus(snapshot.context)).toBe(status)
        } else {
          expect(terminal).toEqual([])
          expect(status).toBe('waiting')
          expect(events.at(-1)).toBe('run.waiting')
        }
      }),
      { numRuns: 300 },
    )
    // Over hundreds of runs every way to end was met (each is common among the scripts), and each
    // terminal status went with one terminal event and back, as core/domain lists them.
    expect([...seen.eventsOf.keys()].sort()).toEqual([...TERMINAL_STATUSES].sort())
    expect([...seen.statusesOf.keys()].sort()).toEqual([...TERMINAL_RUN_EVENTS].sort())
    for (const set of [...seen.eventsOf.values(), ...seen.statusesOf.values()]) expect(set.size).toBe(1)
  })
})
