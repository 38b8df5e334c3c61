/**
 * The editor's run requests: the workflow's test and production runs, a run read as a summary
 * (statuses and times, small) and then whole (inputs and results, possibly large), a test run of
 * the draft, and one node run again over an earlier run's inputs.
 */
import { api } from '../api.ts'

/** A run as the run picker lists it. */
export interface RunItem {
  id: string
  status: string
  startedAt: string
  test: boolean
}

/** One node of a run: its status, times, and (in a whole run) its input, result and error. */
export interface NodeState {
  type?: string
  status: string
  startedAt?: string | null
  finishedAt?: string | null
  input?: unknown
  result?: unknown
  error?: string | null
  branch?: string
}

export interface RunRecord {
  id: string
  status: string
  test?: boolean
  triggerNodeId: string
  startedAt: string
  finishedAt?: string | null
  vars?: unknown
  propValues?: unknown
  nodes?: Record<string, NodeState>
}

/** What running one node again answers; the earlier run is not changed. */
export interface NodeOutcome {
  status: string
  result?: unknown
  error?: string
  code?: string
  branch?: string
  input?: unknown
  durationMs: number
}

const RUNS_LISTED = 20

/** The workflow's latest test runs and production runs, newest first. */
export async function listRuns(workflowId: string): Promise<RunItem[]> {
  const path = `/v1/workflows/${workflowId}/runs?limit=${RUNS_LISTED}`
  const [tests, production] = await Promise.all([
    api<{ items: RunRecord[] }>('GET', `${path}&test=true`),
    api<{ items: RunRecord[] }>('GET', path),
  ])
  const items = [
    ...tests.items.map((r) => ({ id: r.id, status: r.status, startedAt: r.startedAt, test: true })),
    ...production.items.map((r) => ({ id: r.id, status: r.status, startedAt: r.startedAt, test: false })),
  ]
  return items.sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))
}

/** A run; a summary leaves out the nodes' inputs and results (the part that can be large). */
export const loadRun = (runId: string, summary: boolean) =>
  api<RunRecord>('GET', `/v1/runs/${runId}${summary ? '?summary=true' : ''}`)

/** Runs the stored draft as a test run: without a payload, with the trigger's pinned sample. */
export const startTestRun = (workflowId: string, payload?: Record<string, unknown>) =>
  api<{ runId: string }>('POST', `/v1/workflows/${workflowId}/run`, { test: true, ...(payload ? { payload } : {}) })

/** Runs one node of the draft again with the inputs it had in run `runId`. */
export const testNode = (workflowId: string, nodeId: string, runId: string) =>
  api<NodeOutcome>('POST', `/v1/workflows/${workflowId}/nodes/${encodeURIComponent(nodeId)}/test`, { runId })

/** How long a node took, in milliseconds, when it started and finished. */
export function durationOf(node: NodeState): number | undefined {
  if (!node.startedAt || !node.finishedAt) return undefined
  return Math.max(0, Date.parse(node.finishedAt) - Date.parse(node.startedAt))
}

export const FINISHED = new Set(['success', 'partial', 'failure', 'cancelled'])
