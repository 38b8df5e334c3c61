/**
 * A run as the API shows it, read from its row: with its nodes projected from the engine's
 * snapshot (their inputs and results left out of a summary) and, in full, its definition.
 */
import type { Page, PageRequest } from '../domain/common.ts'
import type { Run, TriggeredBy } from '../domain/run.ts'
import type { Definition } from '../domain/workflow.ts'
import { notFound } from '../errors.ts'
import { parseJson } from '../json.ts'
import type { RunProjection } from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import { type RunRow, runs } from '../store/runs.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'

/** What reading a run needs: the store, and the engine's projection of a snapshot. */
export interface RunViewDeps {
  store: Store
  projection: RunProjection
}

/** A run as the API shows it: with its nodes (their inputs and results left out of a summary) and, in full, its definition. */
export async function runOf(deps: RunViewDeps, row: RunRow, summary: boolean): Promise<Run> {
  const run: Run = {
    id: row.id,
    workflowId: row.workflow_id,
    workflowVersion: row.workflow_version,
    organizationId: row.organization_id,
    status: row.status as Run['status'],
    triggerType: row.trigger_type,
    triggerNodeId: row.trigger_node_id,
    triggeredBy: row.triggered_by as TriggeredBy,
    eventId: row.event_id,
    retryOf: row.retry_of,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    error: parseJson(row.error, null),
    propValues: parseJson(row.prop_values, {}),
    vars: parseJson(row.vars, {}),
  }
  if (row.snapshot === undefined) return run
  const body = parseJson<{ definition: Definition } | null>(
    (await runs.definition(deps.store, row.definition_hash))?.body,
    null,
  )
  const definition = body?.definition ?? { nodes: {} }
  const projected = deps.projection.project(row.snapshot, definition, row.trigger_event)
  run.nodes = projected.nodes
  if (projected.vars) run.vars = projected.vars
  if (summary) {
    for (const node of Object.values(run.nodes)) {
      delete node.input
      delete node.result
      if (node.iterations) node.iterations = node.iterations.map(({ input: _i, result: _r, ...rest }) => rest)
    }
  } else {
    run.definition = definition
  }
  return run
}

/** The caller's organization's run, or a 404. */
export async function loadRun(store: Store, caller: Principal, runId: string): Promise<RunRow> {
  const row = await runs.byId(store, caller.organizationId, runId)
  if (!row) throw notFound('run')
  return row
}

/** A page of run summaries from rows read one past the limit. */
export async function pageOf(deps: RunViewDeps, rows: RunRow[], p: PageRequest): Promise<Page<Run>> {
  return {
    hasMore: rows.length > p.limit,
    items: await Promise.all(rows.slice(0, p.limit).map((r) => runOf(deps, r, true))),
    limit: p.limit,
    offset: p.offset,
  }
}
