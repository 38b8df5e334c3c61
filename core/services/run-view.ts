/**
 * A run as the API shows it, read from its row: with its nodes projected from the engine's
 * snapshot (their inputs and results left out of a summary) and, in full, its definition.
 */
import type { Page, PageRequest } from '../domain/common.ts'
import type { Run, RunPayment, TriggeredBy } from '../domain/run.ts'
import type { Definition } from '../domain/workflow.ts'
import { notFound } from '../errors.ts'
import { parseJson } from '../json.ts'
import type { RunProjection } from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import { type RunRow, runs } from '../store/runs.ts'
import { payments } from '../store/x402.ts'
import { workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'

/** What reading a run needs: the store, and the engine's projection of a snapshot. */
export interface RunViewDeps {
  store: Store
  projection: RunProjection
}

/** The payments of paid runs, by run id. */
type RunPayments = Map<string, RunPayment>

/** The payments that started these runs: a paid run is marked with who paid what. */
async function paymentsOf(store: Store, runIds: readonly string[]): Promise<RunPayments> {
  const rows = await payments.ofRuns(store, runIds)
  return new Map(
    rows.map((p) => [
      p.run_id!,
      {
        payer: p.payer,
        amount: p.amount,
        asset: p.asset,
        network: `eip155:${p.chain_id}`,
        transaction: p.transaction_hash ?? '',
      },
    ]),
  )
}

/** Workflows' names by id, each looked up once for one answer. */
type WorkflowNames = Map<string, Promise<string | undefined>>

function workflowNameOf(store: Store, row: RunRow, names: WorkflowNames): Promise<string | undefined> {
  let name = names.get(row.workflow_id)
  if (!name) {
    name = workflows.byId(store, row.organization_id, row.workflow_id).then((w) => w?.name)
    names.set(row.workflow_id, name)
  }
  return name
}

/** What a held run waits for, as the API shows it (the stored limit is the engine's own). */
function waitingForOf(text: string): Run['waitingFor'] {
  const held = parseJson<{ reason: NonNullable<Run['waitingFor']>['reason']; key?: string }>(text, {
    reason: 'concurrency',
  })
  return { reason: held.reason, key: held.key ?? '' }
}

/** A run as the API shows it: with its nodes (their inputs and results left out of a summary) and, in full, its definition. */
export async function runOf(
  deps: RunViewDeps,
  row: RunRow,
  summary: boolean,
  names: WorkflowNames = new Map(),
  paid?: RunPayments,
): Promise<Run> {
  const workflowName = await workflowNameOf(deps.store, row, names)
  const payment = (paid ?? (await paymentsOf(deps.store, [row.id]))).get(row.id)
  const run: Run = {
    id: row.id,
    workflowId: row.workflow_id,
    workflowName: workflowName ?? '',
    workflowVersion: row.workflow_version,
    organizationId: row.organization_id,
    status: row.status as Run['status'],
    triggerType: row.trigger_type,
    triggerNodeId: row.trigger_node_id,
    triggeredBy: row.triggered_by as TriggeredBy,
    // Unset strings are "" in answers (the specification's rule); the row keeps null.
    eventId: row.event_id ?? '',
    retryOf: row.retry_of ?? '',
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at) ?? '',
    error: parseJson(row.error, null),
    propValues: parseJson(row.prop_values, {}),
    vars: parseJson(row.vars, {}),
    ...(payment ? { payment } : {}),
    ...(row.test ? { test: true } : {}),
    // Kept on a held run that ended before it started: shown only while it waits.
    ...(row.waiting_for && row.status === 'waiting' ? { waitingFor: waitingForOf(row.waiting_for) } : {}),
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
    // The snapshot always shows its block expansions: empty until something expands blocks.
    run.definition = { ...definition, blockExpansions: definition.blockExpansions ?? {} }
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
  const names: WorkflowNames = new Map()
  const shown = rows.slice(0, p.limit)
  const paid = await paymentsOf(
    deps.store,
    shown.map((r) => r.id),
  )
  return {
    hasMore: rows.length > p.limit,
    items: await Promise.all(shown.map((r) => runOf(deps, r, true, names, paid))),
    limit: p.limit,
    offset: p.offset,
  }
}
