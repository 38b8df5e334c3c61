/**
 * The run-event vocabulary, in one place: the types of the events the journal records for runs,
 * nodes and workflows (which run event stands for which status, and which end a run: run-lifecycle.ts),
 * how a `workflow.paused` event is built, and how
 * an event looks to API clients (SSE streams, the activity feed). The journal writes these, the
 * stream hub and run control read them, execution hooks deliver the run and node ones.
 */
import type { DomainEvent, RecordedEvent } from '../domain-events.ts'

export const RUN_EVENT_TYPES = [
  'run.started',
  'run.waiting',
  'run.resumed',
  'run.succeeded',
  'run.partial',
  'run.failed',
  'run.cancelled',
] as const
export const NODE_EVENT_TYPES = [
  'node.started',
  'node.succeeded',
  'node.partial',
  'node.failed',
  'node.skipped',
  'node.waiting',
  'node.retrying',
  'node.looping',
  'node.cancelled',
] as const
export type RunEventType = (typeof RUN_EVENT_TYPES)[number]
export type NodeEventType = (typeof NODE_EVENT_TYPES)[number]

/** Why a live workflow was paused by the system (a user's pause has reason null). */
export type PauseReason = 'max_runs_exhausted' | 'consecutive_failures' | 'member_removed' | (string & {})

/** The `workflow.paused` event of a workflow the system paused, with what caused it. */
export function workflowPaused(
  where: { organizationId: string; workflowId: string },
  reason: PauseReason,
  at: number,
  cause: { runId?: string; userId?: string; connectorId?: string | null } = {},
): DomainEvent {
  return {
    organizationId: where.organizationId,
    workflowId: where.workflowId,
    runId: null,
    seq: null,
    nodeId: null,
    type: 'workflow.paused',
    data: { workflowId: where.workflowId, reason, ...cause },
    at,
  }
}

/** Node data that only the execution (detail) stream carries: inputs, results, logs, variables. */
const DETAIL_FIELDS = ['input', 'result', 'logs', 'vars', 'wait']

/**
 * An event as API clients see it. Summary streams leave out inputs and results (a waiting node
 * says only the kind of its wait); the execution stream keeps them.
 */
export function eventForApi(e: RecordedEvent, detail: boolean) {
  let data = e.data
  if (!detail) {
    data = { ...data }
    for (const field of DETAIL_FIELDS) delete data[field]
    if (e.data.wait) data.waitKind = (e.data.wait as { kind?: string }).kind ?? null
  }
  return {
    type: e.type,
    runId: e.runId,
    workflowId: e.workflowId,
    nodeId: e.nodeId,
    seq: e.seq,
    at: new Date(e.at).toISOString(),
    data,
  }
}
