/**
 * Admission of one run, inside the caller's transaction: the workflow's state and the version
 * to run, payment, duplicates (idempotency key, client run id), run controls (cooldown,
 * remaining runs, public limits), then the run itself (start-run.ts). A skipped admission
 * writes nothing but the trigger time.
 */
import type { TriggeredBy } from '../../core/domain/run.ts'
import { workflowPaused } from '../../core/domain/run-events.ts'
import type { WorkflowContent } from '../../core/domain/workflow.ts'
import { badRequest, conflict, notFound } from '../../core/errors.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import { type DispatchRequest, type DispatchResult, PAYMENT_REQUIRED } from '../../core/ports/engine.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { runs } from '../../core/store/runs.ts'
import { displayVersion, type WorkflowRow, workflows } from '../../core/store/workflows.ts'
import type { BoundedMap } from '../../core/bounded-map.ts'
import { checkInput, checkPublicLimits, type createTriggerTimes, initialVars, pickTrigger } from '../admission-rules.ts'
import type { DispatcherDeps } from '../dispatch.ts'
import type { FinishedRun } from '../engine/finish-at-admission.ts'
import type { RunState } from '../engine/state.ts'
import type { FreshRun } from '../engine/types.ts'
import type { VersionContents } from './contents.ts'
import { admitFlow, countsRuns, type FlowOutcome, flowCounted, heldBy, placeRun, priorityOf } from './flow-control.ts'
import { startRun } from './start-run.ts'

/** What admit needs: the dispatcher's deps, and the state its admissions share. */
export interface AdmitDeps
  extends Pick<DispatcherDeps, 'store' | 'clock' | 'ids' | 'recorder' | 'owner' | 'tracing' | 'finishAtAdmission'> {
  readonly contents: VersionContents
  /** Workflows whose last admission locked their row (run controls): their admissions run in turn. */
  readonly locking: BoundedMap<string, true>
  readonly lastTriggered: ReturnType<typeof createTriggerTimes>
}

/** What one admission did, for the caller and for after the commit. */
export interface Admitted {
  result: DispatchResult
  events: RecordedEvent[]
  fresh?: FreshRun
  /** The run ended inside the admitting transaction: nothing to hand off. */
  finished?: FinishedRun | null
  /** What started it, for the metrics counted after the commit. */
  started?: { triggerType: string; triggeredBy: string }
  /** The workflow whose flow control held the run back: it starts on its release. */
  held?: string
  /** Runs asked to cancel (a CANCEL in their inbox), to wake after the commit. */
  wake?: string[]
  /** What flow control did with it, for its metrics. */
  flow?: { workflowId: string; outcome: FlowOutcome }
}

/** A client-chosen run id that cannot name this run: the same 400 whatever the reason. */
const unusableRunId = () =>
  badRequest('request validation failed', [
    {
      path: '/runId',
      in: 'body',
      message: 'cannot be used for this run; choose a new random id (run_ and 10 to 40 letters or digits)',
    },
  ])

/** Entries a paid workflow charges for: its webhook and its public run. */
const PAID_ENTRIES: ReadonlySet<TriggeredBy> = new Set<TriggeredBy>(['webhook', 'public'])

/** A forked workflow's plain prop values (the sensitive ones are read by nodes, never kept in runs). */
function plainProps(w: WorkflowRow): Record<string, unknown> {
  const text = (w as WorkflowRow & { prop_values?: string }).prop_values
  return text && text !== '{}' ? (JSON.parse(text) as Record<string, unknown>) : {}
}

/** Admits one run in `tx`, with these ids; a skipped admission answers why. */
export async function admit(
  a: AdmitDeps,
  tx: SqlExecutor,
  req: DispatchRequest,
  runId: string,
  eventId: string,
): Promise<Admitted> {
  const skipped = (reason: string, existing?: string): Admitted => ({
    result: { action: 'skipped', reason, eventId, runId: existing },
    events: [],
  })
  const read = await a.contents.workflowOf(tx, req)
  const version = versionToRun(req, read?.row)
  if (typeof version === 'string') return skipped(version)
  let w = read!.row

  // A paid workflow (x402Config) admits an outside caller's run only once it is paid; decided on
  // the content of this transaction, so an x402Config added a moment ago counts, and before the
  // duplicate lookups, so an unpaid caller learns nothing of earlier runs.
  const pinned = typeof req.version === 'object' ? req.version : null
  const { content, variableDefs, hash, body } = pinned
    ? await a.contents.pinnedContent(tx, pinned.definitionHash)
    : await a.contents.contentOf(tx, w.id, version, version === w.live_version ? read!.liveStamp : undefined)
  if (PAID_ENTRIES.has(req.triggeredBy) && !req.paid && content.x402Config) return skipped(PAYMENT_REQUIRED)
  const existing = req.idempotencyKey || req.runId ? await duplicateOf(tx, req, w) : undefined
  if (existing) return skipped('duplicate', existing)

  if (!req.automatic && req.version === 'display') checkInput(content.definition, req.event.body)
  if (lockingControls(a, req, w, content) && a.store.dialect === 'postgres') {
    w = (await workflows.lockById(tx, a.store.dialect, w.id))!
    if (w.live_status !== 'active') return skipped(w.paused_reason ?? 'paused')
  }
  const now = a.clock.now()
  const triggerNodeId = req.triggerNodeId ?? pickTrigger(content.definition, req.event.type)
  const events: RecordedEvent[] = []
  const patch: Partial<WorkflowRow> = {}
  // With a cooldown the trigger time decides admissions, so it is written in this transaction;
  // otherwise it is only shown, and written in batches (see lastTriggered).
  if (req.automatic && content.cooldownMs > 0) patch.last_triggered_at = now
  else a.lastTriggered.note(w.id, now)
  const refused = req.automatic ? spendRunControls(w, content, now, patch) : null
  if (refused) return skipped(refused)
  // Flow control after the run controls (a run they skip is not counted), before anything is written.
  const held = heldBy(req, content.flowControl)
  const flow = held ? await admitFlow(tx, req, held, triggerNodeId, now) : null
  if (flow?.refused) return { ...skipped(flow.refused), ...flowCounted(w.id, flow, held) }
  if (flow?.absorbedBy)
    return {
      result: { action: 'debounced', runId: flow.absorbedBy, eventId },
      events: [],
      ...flowCounted(w.id, flow, held),
    }
  if (patch.paused_reason) {
    const paused = workflowPaused({ organizationId: w.organization_id, workflowId: w.id }, 'max_runs_exhausted', now)
    events.push(...(await a.recorder.record(tx, [paused])))
  }
  if (req.publicCaller) await checkPublicLimits(tx, w.id, content, req.publicCaller, now)
  if (Object.keys(patch).length > 0) await workflows.update(tx, w.id, patch)

  await a.contents.storeDefinition(tx, hash, body)
  const vars = await initialVars(tx, w.id, variableDefs)
  const triggerType = content.definition.nodes[triggerNodeId]?.type ?? req.event.type
  const started = await startRun(a, tx, {
    runId,
    eventId,
    workflow: w,
    version,
    triggerType,
    triggerNodeId,
    triggeredBy: req.triggeredBy,
    automatic: req.automatic,
    test: req.test === true,
    idempotencyKey: req.idempotencyKey ?? null,
    retryOf: req.seed?.fromRunId ?? null,
    definitionHash: hash,
    definition: content.definition,
    variableDefs,
    event: req.event,
    props: { ...plainProps(w), ...req.propValues },
    vars,
    seed: req.seed?.nodes as RunState['seed'] | undefined,
    now,
    held: flow?.held !== undefined,
    priority: held?.priority === undefined ? undefined : priorityOf(held.priority, req.event, triggerNodeId),
  })
  events.push(...started.events)
  const placed = flow ? await placeRun(tx, a, w.id, runId, flow, now) : null
  if (placed) events.push(...placed.events)
  return {
    result: { action: flow?.debounced ? 'debounced' : 'triggered', runId, eventId },
    events,
    // A held run waits for its release (flow-releases.ts), taking no executor slot.
    fresh: flow?.held === undefined ? started.fresh : undefined,
    finished: started.finished,
    started: { triggerType, triggeredBy: req.triggeredBy },
    ...(flow?.held !== undefined ? { held: w.id, wake: placed?.wake } : {}),
    ...flowCounted(w.id, flow, held),
  }
}

/**
 * The version a request runs, or why an automatic run is skipped (archived, not published,
 * paused); an API run is told with an error instead, and a webhook that no longer opens the
 * workflow with a 404.
 */
function versionToRun(req: DispatchRequest, w: WorkflowRow | undefined): number | string {
  if (req.triggerSecret !== undefined && (!w || w.trigger_secret !== req.triggerSecret || w.archived_at !== null))
    throw notFound('webhook')
  if (!w) throw notFound('workflow')
  if (w.archived_at !== null) {
    if (!req.automatic) throw conflict('the workflow is archived; unarchive it to run it')
    return 'archived'
  }
  const pinned = typeof req.version === 'object' ? req.version : null
  const version = pinned ? pinned.number : req.version === 'live' ? w.live_version : displayVersion(w)
  if (version === null) {
    if (!req.automatic) throw conflict('the workflow has no live version')
    return 'not_published'
  }
  if (req.automatic && w.live_status !== 'active') return w.paused_reason ?? 'paused'
  return version
}

/** The run a request repeats (same idempotency key, or same client run id), if any. */
async function duplicateOf(tx: SqlExecutor, req: DispatchRequest, w: WorkflowRow): Promise<string | undefined> {
  if (req.idempotencyKey) {
    const existing = await runs.byIdempotencyKey(tx, w.id, req.idempotencyKey)
    if (existing) return existing.id
  }
  if (req.runId) {
    const existing = await runs.ownerOf(tx, req.runId)
    if (existing) {
      // Another workflow's or another organization's run: answered as any unusable id, so
      // that the answer tells nothing about what exists elsewhere.
      if (existing.workflow_id !== w.id || existing.organization_id !== w.organization_id) throw unusableRunId()
      return existing.id
    }
  }
  return undefined
}

/**
 * Whether the admission reads and changes the workflow row (run controls), or counts its run
 * against flow control, so that it locks the row (Postgres) and reads it again. A workflow without them is not locked, so its runs are
 * admitted concurrently.
 */
function lockingControls(a: AdmitDeps, req: DispatchRequest, w: WorkflowRow, content: WorkflowContent): boolean {
  const controlled =
    (req.automatic && (content.cooldownMs > 0 || w.remain_runs !== null || req.publicCaller !== undefined)) ||
    countsRuns(heldBy(req, content.flowControl))
  // Forgotten by automatic admissions only: an API run locks for flow control alone, not for the run controls.
  if (controlled) a.locking.set(w.id, true)
  else if (req.automatic) a.locking.delete(w.id)
  return controlled
}

/**
 * An automatic run's cooldown and remaining runs: why it is skipped, or null with what it
 * spends written into `patch` (the last remaining run pauses the workflow).
 */
function spendRunControls(w: WorkflowRow, content: WorkflowContent, now: number, patch: Partial<WorkflowRow>) {
  if (content.cooldownMs > 0 && w.last_triggered_at !== null && now - w.last_triggered_at < content.cooldownMs)
    return 'cooldown'
  if (w.remain_runs === null) return null
  if (w.remain_runs <= 0) return 'max_runs_exhausted'
  patch.remain_runs = w.remain_runs - 1
  if (w.remain_runs - 1 === 0) {
    patch.live_status = 'paused'
    patch.paused_reason = 'max_runs_exhausted'
  }
  return null
}
