/**
 * A live run in the executor: its actor, observed by its journal, fed from its inbox, and put
 * away (journal flushed, actor stopped) once it ends or waits. A run that cannot start or go on
 * ends as failed here, once, instead of coming back on every sweep.
 */
import { createActor } from 'xstate'
import { runInbox } from '../../core/store/run-side.ts'
import { publishEvents } from '../../core/domain-events.ts'
import { errorMessage } from '../../core/errors.ts'
import type { ExecutorDeps } from './executor.ts'
import { createRunJournal } from './journal.ts'
import { type RunActor, type RunMachine, statusOf } from './machine.ts'
import type { Plan } from './plan.ts'
import { endRun } from './run-end.ts'
import { persistedRun } from './stored-snapshot.ts'
import type { BranchesOf, Emitted, RunState } from './state.ts'
import type { RunCommand, RunJournal, RunMeta } from './types.ts'

/** A run loading or live in the executor. */
export interface Entry {
  runId: string
  phase: 'loading' | 'active' | 'stopping'
  actor?: RunActor
  journal?: RunJournal
  wakePending: boolean
  pulling: boolean
  repull?: boolean
  sent: Set<string>
}

/** What the executor's parts share: its deps, its live runs, and the way a run leaves them. */
export interface ExecutorContext {
  readonly deps: ExecutorDeps
  readonly entries: Map<string, Entry>
  readonly branchesOf: BranchesOf
  machineFor(plan: Plan): RunMachine
  now(): number
  /** The run left (ended, put away, lost or never started): frees its place and starts what waits. */
  release(entry: Entry): void
}

/** Starts a run's actor from its state or snapshot, with its journal observing it. */
export function attach(
  ctx: ExecutorContext,
  entry: Entry,
  meta: RunMeta,
  plan: Plan,
  options: { input: RunState } | { snapshot: unknown },
  initial: readonly Emitted[],
  waited: Set<string>,
  restored = false,
) {
  const { deps } = ctx
  const actor = createActor(ctx.machineFor(plan), options as never) as RunActor
  const read = () => {
    const snapshot = actor.getSnapshot()
    return {
      status: statusOf(snapshot),
      snapshot: persistedRun(snapshot),
      vars: snapshot.context.vars,
      error: snapshot.context.error,
    }
  }
  const journal = createRunJournal(deps, meta, read, waited, () => {
    // Another worker took this run over (this one was presumed dead): stop without writing.
    deps.logger.warn('lost ownership of a run; stopping it here', { runId: meta.runId })
    entry.phase = 'stopping'
    actor.stop()
    ctx.release(entry)
  })
  entry.actor = actor
  entry.journal = journal
  for (const e of initial) journal.append({ type: e.type, nodeId: e.nodeId, data: e.data })
  actor.on('*', (e) => journal.append(e as never))
  actor.subscribe({
    next: () => {
      journal.touch()
      if (!entry.pulling) settleIfDone(ctx, entry)
    },
    error: (error) => {
      deps.logger.error('run actor failed', { runId: meta.runId, error: String(error) })
      // The actor cannot go on: end the run as failed, so that it neither hangs nor comes back.
      entry.phase = 'stopping'
      void failUnstartable(deps, meta.runId, `the run could not go on: ${errorMessage(error)}`).finally(() =>
        ctx.release(entry),
      )
    },
  })
  entry.phase = 'active'
  // A restored run gets its inbox before it may be put away again.
  entry.pulling = restored
  actor.start()
  if (!restored) settleIfDone(ctx, entry)
}

/** Puts a run away once it ended or waits: its journal flushed, its actor stopped. */
export function settleIfDone(ctx: ExecutorContext, entry: Entry) {
  if (entry.phase !== 'active' || !entry.actor) return
  const snapshot = entry.actor.getSnapshot()
  if (snapshot.status !== 'done' && statusOf(snapshot) !== 'waiting') return
  entry.phase = 'stopping'
  entry.journal!.flushed().then(() => {
    entry.actor!.stop()
    ctx.release(entry)
  })
}

/** Sends a live run the inbox events it has not been sent (`rows`: already read), reading again while more arrive. */
export async function deliverInbox(ctx: ExecutorContext, entry: Entry, rows?: Array<{ id: string; event: string }>) {
  if (entry.pulling) {
    entry.repull = true
    return
  }
  entry.pulling = true
  try {
    let inbox = rows
    do {
      entry.repull = false
      inbox ??= await runInbox.of(ctx.deps.store, entry.runId)
      for (const row of inbox) {
        if (entry.sent.has(row.id)) continue
        if (entry.phase !== 'active') {
          entry.wakePending = true
          return
        }
        entry.sent.add(row.id)
        entry.journal!.consumed(row.id)
        entry.actor!.send({ ...(JSON.parse(row.event) as RunCommand), inboxId: row.id })
      }
      inbox = undefined
    } while (entry.repull)
  } finally {
    entry.pulling = false
  }
  settleIfDone(ctx, entry)
}

/** Ends a run that cannot execute as failed, with its run.failed event (nothing if it already ended). */
export async function failUnstartable(deps: ExecutorDeps, runId: string, message: string) {
  const end = { status: 'failure', at: deps.clock.now(), error: { message, code: 'unstartable' } } as const
  try {
    const recorded = await deps.store.write((tx) => endRun(tx, deps.recorder, runId, end))
    publishEvents(deps.bus, recorded)
  } catch (failure) {
    deps.logger.error('could not fail a run that cannot execute', { runId, error: String(failure) })
  }
}
