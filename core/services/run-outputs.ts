/**
 * Answers that wait for the output: a caller that started a run (webhook, API run, public run,
 * paid call) may wait a bounded time for it to end, and then receives its status and output. The
 * wait follows the run's event stream to its end event; nothing polls. It will not wait for a run
 * that pauses for something outside (`waiting` is not an end).
 */
import { isTerminal } from '../domain/run-lifecycle.ts'
import type { Run } from '../domain/run.ts'
import type { WorkflowContent } from '../domain/workflow.ts'
import { parseJson } from '../json.ts'
import { type Clock, sleepOn } from '../ports/clock.ts'
import type { RunProjection } from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import type { StreamHub } from '../ports/streams.ts'
import { runs } from '../store/runs.ts'
import { versions } from '../store/workflows.ts'
import { runOf } from './run-view.ts'

/** What a caller that waited receives: the run, how it ended, and its output. */
export interface RunOutcome {
  id: string
  status: Run['status']
  output: unknown
}

export interface RunOutputsDeps {
  store: Store
  hub: StreamHub
  clock: Clock
  projection: RunProjection
}

/** Waiting for runs' outputs. */
export interface RunOutputs {
  /** The run's outcome once it ends within `waitMs`; null when it did not (or does not exist). */
  waitFor(runId: string, waitMs: number): Promise<RunOutcome | null>
}

/** The output of a finished run: the result of the workflow's `responseNodeId`, else of the last node that finished. */
export function outputOf(run: Run, responseNodeId: string): unknown {
  const nodes = run.nodes ?? {}
  if (responseNodeId) return nodes[responseNodeId]?.result ?? null
  let last: { at: string; result: unknown } | null = null
  for (const node of Object.values(nodes)) {
    if (node.finishedAt && (!last || node.finishedAt >= last.at)) last = { at: node.finishedAt, result: node.result }
  }
  return last?.result ?? null
}

export function createRunOutputs(deps: RunOutputsDeps): RunOutputs {
  const { store } = deps

  /** Resolves true when the run's stream ends (its end event), false when `waitMs` passes first. */
  async function ended(organizationId: string, runId: string, waitMs: number): Promise<boolean> {
    const stop = new AbortController()
    const subscription: { off: (() => void) | null } = { off: null }
    const end = new Promise<boolean>((resolve) => {
      void deps.hub.subscribeRun(organizationId, runId, 0, { send: () => {}, end: () => resolve(true) }).then((off) => {
        // A subscription that arrives after the wait is over is ended at once.
        if (stop.signal.aborted) off?.()
        else subscription.off = off
        if (off === null) resolve(false)
      })
    })
    const timeout = sleepOn(deps.clock, waitMs, stop.signal).then(
      () => false,
      () => false,
    )
    try {
      return await Promise.race([end, timeout])
    } finally {
      stop.abort()
      subscription.off?.()
    }
  }

  return {
    async waitFor(runId, waitMs) {
      const owner = await runs.ownerOf(store, runId)
      if (!owner || waitMs <= 0) return null
      if (!isTerminal(owner.status) && !(await ended(owner.organization_id, runId, waitMs))) return null
      const row = await runs.byId(store, owner.organization_id, runId)
      if (!row || !isTerminal(row.status)) return null
      const run = await runOf(deps, row, false)
      const content = parseJson<Partial<WorkflowContent>>(
        await versions.content(store, row.workflow_id, row.workflow_version),
        {},
      )
      return { id: run.id, status: run.status, output: outputOf(run, content.responseNodeId ?? '') }
    },
  }
}
