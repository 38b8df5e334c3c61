/**
 * Runs one node of a draft again, with the inputs it had in an earlier run: the run's trigger
 * event, variables and upstream results as its stored state holds them. Nothing is written: the
 * earlier run's journal, status and waits stay as they were, and no new run is made. What the
 * node does outside (an HTTP call, a message) it does again, as any test of it would.
 */
import type { Definition } from '../domain/workflow.ts'

export interface NodeTestRequest {
  organizationId: string
  workflowId: string
  /** The version the draft has: what `{{$workflow.version}}` answers. */
  workflowVersion: number
  /** The draft's definition: the node runs as it is written now. */
  definition: Definition
  nodeId: string
  /** The earlier run: its stored snapshot and trigger event (the row's columns, as JSON). */
  run: { snapshot: string; triggerEvent: string }
}

/** The node's outcome: a result (and its branch), a failure, or the wait it would start. */
export interface NodeTestOutcome {
  status: 'success' | 'failure' | 'waiting'
  result?: unknown
  branch?: string
  error?: string
  code?: string
  /** The resolved payload the node was given. */
  input?: unknown
  durationMs: number
}

export interface NodeTester {
  test(request: NodeTestRequest): Promise<NodeTestOutcome>
}
