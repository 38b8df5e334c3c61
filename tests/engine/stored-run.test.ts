/**
 * A run's stored form, read back as recovery reads it: a run stored while a node executes or
 * while a waiting node is being resumed restores to an actor that carries on from there (the node
 * executed again, the resume's event delivered), with the run's state stored once, not again in
 * the invoked node's input. Rows stored by earlier versions (XState's whole persisted snapshot)
 * restore the same way.
 */
import { describe, expect, it } from 'bun:test'
import { createActor } from 'xstate'
import type { Definition } from '../../core/domain/workflow.ts'
import { createRunMachine, type RunActor } from '../../runtime/engine/machine.ts'
import { compilePlan } from '../../runtime/engine/plan.ts'
import { startState } from '../../runtime/engine/state.ts'
import { persistedRun, restoreSnapshot, storedSnapshot } from '../../runtime/engine/stored-snapshot.ts'
import type { NodeRunner, Outcome } from '../../runtime/engine/types.ts'
import { runInput } from '../helpers/run-input.ts'

const definition = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['call'] },
    call: { type: 'call', payload: {}, children: ['log'] },
    log: { type: 'log', payload: {} },
  },
} as unknown as Definition
const plan = compilePlan(definition, 'stored-run')
const trigger = { type: 'manual', body: { order: 'kept-once' }, headers: {}, receivedAt: '2026-11-28T00:00:00.000Z' }

/** `call` answers later (as an outbound call does) or waits for an event; every call is counted. */
function world(call: 'later' | 'waits') {
  const executed: string[] = []
  const resumedWith: unknown[] = []
  let answer: (outcome: Outcome) => void = () => {}
  const runner: NodeRunner = {
    execute(_plan, state) {
      const nodeId = state.current!.frame.nodeId
      executed.push(nodeId)
      if (nodeId !== 'call') return { kind: 'success', result: { logged: true } }
      if (call === 'waits') return { kind: 'wait', wait: { triggerType: 'order.paid' } }
      return { pending: new Promise<Outcome>((resolve) => (answer = resolve)), abort() {} }
    },
    resume(_plan, task) {
      resumedWith.push(task.event)
      return new Promise<Outcome>((resolve) => (answer = resolve))
    },
  }
  const machine = createRunMachine(
    plan,
    runner,
    () => undefined,
    () => 1_800_000_000_000,
  )
  const answerWith = (outcome: Outcome) => answer(outcome)
  return { machine, executed, resumedWith, answerWith }
}

function started(w: ReturnType<typeof world>): RunActor {
  const step = startState(runInput(trigger), plan, () => undefined, 1_800_000_000_000)
  return createActor(w.machine, { input: step.state }).start() as RunActor
}

/** Restores a stored row in a new world (a new process), runs it to its end, answers its events. */
async function recover(row: string, call: 'later' | 'waits', send?: (actor: RunActor) => void) {
  const w = world(call)
  const snapshot = restoreSnapshot(row, JSON.stringify(trigger))
  const actor = createActor(w.machine, { snapshot } as never) as RunActor
  const emitted: string[] = []
  actor.on('*', (e) => emitted.push(e.type))
  const done = new Promise<void>((resolve) => actor.subscribe({ complete: () => resolve() }))
  actor.start()
  send?.(actor)
  await Promise.resolve()
  w.answerWith({ kind: 'success', result: { answered: true } })
  await done
  return { w, actor, emitted }
}

const stores = {
  current: (actor: RunActor) => storedSnapshot(persistedRun(actor.getSnapshot())),
  earlier: (actor: RunActor) => storedSnapshot(actor.getPersistedSnapshot()),
}

describe("a run's stored form", () => {
  for (const [version, store] of Object.entries(stores)) {
    it(`restores a run stored while a node executes, executing it again (${version} form)`, async () => {
      const first = world('later')
      const actor = started(first)
      expect(actor.getSnapshot().value).toBe('running')
      const row = store(actor)
      actor.stop()
      // The earlier form kept the run's state (and its trigger event) again in the node's input.
      if (version === 'current') {
        expect(row).not.toContain('kept-once')
        expect(row.split('"nodes"').length - 1).toBe(1)
      }
      const { w, actor: back, emitted } = await recover(row, 'later')
      expect(w.executed).toEqual(['call', 'log'])
      expect(emitted).toEqual(['node.succeeded', 'node.started', 'node.succeeded', 'run.succeeded'])
      expect(back.getSnapshot().value).toBe('success')
      expect(back.getSnapshot().context.nodes.call.result).toEqual({ answered: true })
      expect(back.getSnapshot().context.trigger).toEqual(trigger)
    })

    it(`restores a run stored while its waiting node is resumed, with the resume's event (${version} form)`, async () => {
      const first = world('waits')
      const actor = started(first)
      expect(actor.getSnapshot().value).toBe('waiting')
      actor.send({ type: 'RESUME', key: 'call', data: { paid: true } })
      expect(actor.getSnapshot().value).toBe('resuming')
      const row = store(actor)
      actor.stop()
      const { w, emitted } = await recover(row, 'waits')
      expect(w.resumedWith).toEqual([{ type: 'RESUME', key: 'call', data: { paid: true } }])
      expect(w.executed).toEqual(['log'])
      expect(emitted).toEqual(['node.succeeded', 'node.started', 'node.succeeded', 'run.succeeded'])
    })
  }

  it('restores a waiting run and resumes it by its event', async () => {
    const actor = started(world('waits'))
    const row = stores.current(actor)
    actor.stop()
    const { w, emitted } = await recover(row, 'waits', (back) =>
      back.send({ type: 'RESUME', key: 'call', data: { paid: true } }),
    )
    expect(w.resumedWith).toHaveLength(1)
    expect(emitted).toEqual(['run.resumed', 'node.succeeded', 'node.started', 'node.succeeded', 'run.succeeded'])
  })
})
