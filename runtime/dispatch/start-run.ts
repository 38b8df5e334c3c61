/**
 * The one way a run begins, for every admission: the run row, its `run.started` event (sequence
 * 1), and the fresh run handed to the executor after the commit, or, when the run ended at once
 * (finish-at-admission.ts), its whole journal.
 */
import type { TriggeredBy } from '../../core/domain/run.ts'
import type { Definition, VariableDef } from '../../core/domain/workflow.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { TriggerEvent } from '../../core/ports/engine.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { noTracing, type Tracing } from '../../core/ports/tracing.ts'
import { type NewRun, runs } from '../../core/store/runs.ts'
import type { WorkflowRow } from '../../core/store/workflows.ts'
import type { DispatcherDeps } from '../dispatch.ts'
import type { FinishedRun } from '../engine/finish-at-admission.ts'
import type { NumberedEvent } from '../engine/journal.ts'
import type { RunState } from '../engine/state.ts'
import type { FreshRun } from '../engine/types.ts'

/** What startRun needs of its admission. */
export type StartDeps = Pick<DispatcherDeps, 'recorder' | 'owner' | 'finishAtAdmission' | 'tracing'>

/** A run admission decided to start. */
export interface RunStart {
  runId: string
  eventId: string
  workflow: WorkflowRow
  version: number
  triggerType: string
  triggerNodeId: string
  triggeredBy: TriggeredBy
  automatic: boolean
  /** A test run: marked on its row (absent: false). */
  test?: boolean
  idempotencyKey: string | null
  retryOf: string | null
  definitionHash: string
  definition: Definition
  variableDefs: VariableDef[]
  event: TriggerEvent
  props: Record<string, unknown>
  vars: Record<string, unknown>
  seed: RunState['seed'] | undefined
  now: number
  /** Held back by flow control: stored to start later, never run to its end at admission. */
  held?: boolean
  /** Its flow control's priority (−100 to 100), for the order runs start in. */
  priority?: number
}

/** The run's span context, and the caller's it continues. */
type RunTrace = ReturnType<Tracing['runContext']>

/** Stores the run, with its first event, or runs it to its end when it can (finishAtAdmission). */
export async function startRun(
  deps: StartDeps,
  tx: SqlExecutor,
  r: RunStart,
): Promise<{ events: RecordedEvent[]; fresh: FreshRun; finished: FinishedRun | null }> {
  const w = r.workflow
  const live = r.version === w.live_version
  const trace = (deps.tracing ?? noTracing).runContext(r.event.headers?.traceparent)
  const row = newRun(r, live, trace, deps.owner)
  const first = startedEvent(r)
  const fresh = freshRun(r, live, trace)
  // A run of pure nodes ends here: its row is stored in its final state, its journal with its first event.
  const finished =
    deps.finishAtAdmission && !r.held
      ? await deps.finishAtAdmission(tx, fresh, first, {
          insert: (state) => runs.insertStatement({ ...row, state }),
          consecutiveFailures: w.consecutive_failures,
        })
      : null
  if (finished) return { events: finished.recorded, fresh, finished }
  // The run's row with its first event: one statement on Postgres.
  const { recorded: events } = await deps.recorder.recordWith(
    tx,
    [
      {
        organizationId: w.organization_id,
        workflowId: w.id,
        runId: r.runId,
        seq: first.seq,
        nodeId: first.nodeId,
        type: first.type,
        data: first.data,
        at: first.at,
      },
    ],
    [runs.insertStatement(row)],
  )
  return { events, fresh, finished: null }
}

/** The run's row as it is inserted. */
function newRun(r: RunStart, live: boolean, trace: RunTrace, owner: string | null): NewRun {
  const w = r.workflow
  return {
    id: r.runId,
    organizationId: w.organization_id,
    workflowId: w.id,
    workflowVersion: r.version,
    triggerType: r.triggerType,
    triggerNodeId: r.triggerNodeId,
    triggeredBy: r.triggeredBy,
    automatic: r.automatic,
    live,
    test: r.test === true,
    eventId: r.eventId,
    idempotencyKey: r.idempotencyKey,
    retryOf: r.retryOf,
    definitionHash: r.definitionHash,
    triggerEvent: JSON.stringify(r.event),
    propValues: JSON.stringify(r.props),
    vars: JSON.stringify(r.vars),
    seed: r.seed ? JSON.stringify(r.seed) : null,
    startedAt: r.now,
    owner,
    traceparent: trace.traceparent,
    traceCaller: trace.parent,
  }
}

/** The run's first journal event, `run.started`. */
function startedEvent(r: RunStart): NumberedEvent {
  return {
    type: 'run.started',
    nodeId: null,
    seq: 1,
    at: r.now,
    data: {
      runId: r.runId,
      workflowId: r.workflow.id,
      workflowVersion: r.version,
      triggerType: r.triggerType,
      triggerNodeId: r.triggerNodeId,
      triggeredBy: r.triggeredBy,
      eventId: r.eventId,
      retryOf: r.retryOf,
    },
  }
}

/** What the executor is handed to start the run without reading it back. */
function freshRun(r: RunStart, live: boolean, trace: RunTrace): FreshRun {
  const w = r.workflow
  return {
    meta: {
      runId: r.runId,
      organizationId: w.organization_id,
      workflowId: w.id,
      workflowVersion: r.version,
      automatic: r.automatic,
      live,
      definitionHash: r.definitionHash,
      variableDefs: r.variableDefs,
      lastSeq: 1,
      startedAt: r.now,
      traceparent: trace.traceparent,
      traceCaller: trace.parent,
    },
    input: {
      runId: r.runId,
      workflowId: w.id,
      organizationId: w.organization_id,
      workflowVersion: r.version,
      triggerNodeId: r.triggerNodeId,
      trigger: r.event,
      vars: r.vars,
      props: r.props,
      seed: r.seed,
    },
    definition: r.definition,
    ...(r.priority ? { priority: r.priority } : {}),
  }
}
