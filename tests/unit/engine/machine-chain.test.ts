/**
 * The run machine executes nodes whose handlers answer synchronously back to back in one
 * transition, but never more than MAX_CHAIN of them: a long chain gives the event loop a turn,
 * so one run cannot hold back requests, heartbeats and other runs for its whole length.
 */
import { describe, expect, it } from 'bun:test'
import { createActor, toPromise } from 'xstate'
import type { Definition } from '../../../core/domain/workflow.ts'
import { createRunMachine, MAX_CHAIN } from '../../../runtime/engine/machine.ts'
import type { NodeRunner, Outcome } from '../../../runtime/engine/types.ts'
import { compilePlan } from '../../../runtime/engine/plan.ts'
import { startState } from '../../../runtime/engine/state.ts'
import { runInput } from '../../helpers/run-input.ts'

function chainOf(length: number): Definition {
  const nodes: Definition['nodes'] = { root: { type: 'manual', children: ['n0'] } }
  for (let i = 0; i < length; i++)
    nodes[`n${i}`] = { type: 'log', payload: {}, children: i + 1 < length ? [`n${i + 1}`] : [] }
  return { triggerNodeIds: ['root'], nodes } as Definition
}

function startRun(length: number) {
  const plan = compilePlan(chainOf(length), `chain-${length}`)
  const executed: string[] = []
  const runner: NodeRunner = {
    execute: (_plan, state): Outcome => {
      executed.push(state.current!.frame.nodeId)
      return { kind: 'success', result: { at: state.current!.frame.nodeId } }
    },
    resume: () => Promise.reject(new Error('nothing waits here')),
  }
  const machine = createRunMachine(
    plan,
    runner,
    () => undefined,
    () => 0,
  )
  // As the executor does: the events of advancing to the first node come first, then the actor's.
  const first = startState(runInput(), plan, () => undefined, 0)
  const emitted = first.events.map((e) => `${e.type} ${e.nodeId ?? ''}`.trim())
  const actor = createActor(machine, { input: first.state })
  actor.on('*', (e) => emitted.push(`${e.type} ${e.nodeId ?? ''}`.trim()))
  actor.start()
  return { actor, executed, emitted }
}

describe("the run machine's synchronous chains", () => {
  it('executes a short chain of synchronous nodes within the start', () => {
    const { actor, executed } = startRun(10)
    expect(executed).toHaveLength(10)
    expect(actor.getSnapshot().status).toBe('done')
  })

  it('yields to the event loop after MAX_CHAIN nodes and then finishes with every event in order', async () => {
    const length = MAX_CHAIN * 2 + 10
    const { actor, executed, emitted } = startRun(length)
    expect(executed).toHaveLength(MAX_CHAIN)
    expect(actor.getSnapshot().status).toBe('active')
    await toPromise(actor)
    expect(actor.getSnapshot().value).toBe('success')
    expect(executed).toEqual(Array.from({ length }, (_, i) => `n${i}`))
    const started = emitted.filter((e) => e.startsWith('node.started')).map((e) => e.split(' ')[1])
    expect(started).toEqual(executed)
    expect(emitted.at(-1)).toBe('run.succeeded')
  })
})
