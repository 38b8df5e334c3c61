/**
 * Runs that end at admission: when every node of a run's plan is pure (ActionDefinition.pure:
 * the handler answers synchronously and only computes), the run's actor is run to its end inside
 * the transaction that admits it. Nothing outside the transaction happens before it commits, so
 * the run's row is stored once, in its final state, with its whole journal (docs/runs.md, "Runs
 * that end at admission"). A run that does not end in one step is left to the executor.
 */
import { createActor } from 'xstate'
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import type { ExecutorDeps } from './executor.ts'
import { type AdmissionWrite, journalWriter, type NumberedEvent } from './journal.ts'
import { type RunActor, type RunMachine, statusOf } from './machine.ts'
import type { Plan } from './plan.ts'
import { type BranchesOf, type Emitted, startState } from './state.ts'
import { persistedRun } from './stored-snapshot.ts'
import type { FreshRun } from './types.ts'

/** A run that ended inside the transaction that admitted it. */
export interface FinishedRun {
  /** Its journal, in order, as recorded (to publish after the commit). */
  readonly recorded: RecordedEvent[]
  /** After the commit: its metrics and spans. */
  committed(): void
}

/**
 * Runs a run being admitted to its end inside the admitting transaction `tx`, when it can end
 * at once. Its events (after `first`, which it records with them) are written in `tx`, and its
 * row by `admission.insert`, in its final state; `committed` reports them once the transaction commits.
 * Null when the run cannot end now (nothing was written): it is then stored and handed off as
 * any other.
 */
export type FinishAtAdmission = (
  tx: SqlExecutor,
  run: FreshRun,
  first: NumberedEvent,
  admission: AdmissionWrite,
) => Promise<FinishedRun | null>

export function createAdmissionFinisher(
  deps: ExecutorDeps,
  machineFor: (plan: Plan) => RunMachine,
  branchesOf: BranchesOf,
): FinishAtAdmission {
  const now = () => deps.clock.now()

  /** Whether every node of a plan may execute at admission (its trigger aside). */
  const pure = new WeakMap<Plan, boolean>()
  function isPure(plan: Plan): boolean {
    let known = pure.get(plan)
    if (known === undefined) {
      known = [...plan.nodes.values()].every(
        (node) => node.isTrigger || deps.registry.action(node.type, node.def.typeVersion)?.pure === true,
      )
      pure.set(plan, known)
    }
    return known
  }

  return async (tx, fresh, first, admission) => {
    let plan: Plan
    try {
      plan = deps.plans.get(fresh.meta.definitionHash, () => fresh.definition)
    } catch {
      return null // a definition that cannot execute fails in the executor, with its event
    }
    if (!isPure(plan)) return null
    await deps.runner.ready?.(fresh.meta.organizationId, fresh.meta.workflowId)
    const step = startState(fresh.input, plan, branchesOf, now())
    const actor = createActor(machineFor(plan), { input: step.state }) as RunActor
    const emitted: Emitted[] = [...step.events]
    actor.on('*', (e) => emitted.push(e as never))
    actor.start()
    const snapshot = actor.getSnapshot()
    if (snapshot.status !== 'done') {
      // Not at its end in one step (a chain longer than one turn, a retry's delay): the executor
      // runs it from its start. Nothing was done outside the actor.
      actor.stop()
      return null
    }
    const at = now()
    const events: NumberedEvent[] = [
      first,
      ...emitted.map((e, i) => ({ type: e.type, nodeId: e.nodeId, data: e.data, seq: first.seq + 1 + i, at })),
    ]
    const persisted = persistedRun(snapshot)
    actor.stop()
    const writer = journalWriter(deps, fresh.meta)
    const state = {
      status: statusOf(snapshot),
      snapshot: persisted,
      vars: snapshot.context.vars,
      error: snapshot.context.error,
    }
    const { recorded } = await writer.write(tx, events, [], state, new Set(), first.seq, admission)
    return { recorded, committed: () => writer.committed(events, persisted) }
  }
}
