/**
 * The dispatcher admits runs. In one transaction it checks the workflow's state and run
 * controls (status, cooldown, remaining runs, public limits), deduplicates by idempotency key
 * or client run id, stores the definition snapshot and the run with its first journal event,
 * and answers at once; the executor takes the run from there. A repeated key returns the first
 * run, never a second one.
 */
import type { Metrics } from '../core/ports/metrics.ts'
import { noTracing, type Tracing } from '../core/ports/tracing.ts'
import {
  type DispatchRequest,
  type DispatchResult,
  type Dispatcher,
  PAYMENT_REQUIRED,
  type TriggerEvent,
} from '../core/ports/engine.ts'
import { type Definition, defaultContent, type VariableDef, type WorkflowContent } from '../core/domain/workflow.ts'
import { badRequest, conflict, notFound } from '../core/errors.ts'
import { publishEvents, type RecordedEvent } from '../core/events.ts'
import { canonicalJson, parseJson } from '../core/json.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { SqlExecutor, Store } from '../core/ports/store.ts'
import { sha256Hex } from '../core/security/hash.ts'
import { type NewRun, type RunRow, runs } from '../core/store/runs.ts'
import { displayVersion, versions, type WorkflowRow, workflows } from '../core/store/workflows.ts'
import type { FreshRun } from './engine/types.ts'
import type { FinishAtAdmission, FinishedRun } from './engine/finish-at-admission.ts'
import type { NumberedEvent } from './engine/journal.ts'
import type { RunState } from './engine/state.ts'
import { runStateOf } from './engine/stored-snapshot.ts'
import type { EventRecorder } from './events.ts'
import {
  checkInput,
  checkPublicLimits,
  createTriggerTimes,
  initialVars,
  mergedVariableDefs,
  pickTrigger,
} from './admission-rules.ts'
import type { Backlog } from './backlog.ts'
import { workflowPaused } from '../core/domain/run-events.ts'
import type { TriggeredBy } from '../core/domain/run.ts'
import { BoundedMap } from '../core/bounded-map.ts'
import { noMask, type SecretMasks } from '../core/security/value-mask.ts'

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

/** Admissions the backlog may refuse (429): what callers outside send. Runs started by runs, schedules and retries are the work itself. */
const BACKPRESSURED: ReadonlySet<TriggeredBy> = new Set<TriggeredBy>([
  'key',
  'user',
  'webhook',
  'public',
  'integration',
])

export interface DispatcherDeps {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  recorder: EventRecorder
  /** The worker that will execute admitted runs, when it is this process; null hands them to the work queue. */
  owner: string | null
  /** After commit: start the run here, or notify the workers. */
  handOff(run: FreshRun): void
  /**
   * Runs a run being admitted to its end in the admitting transaction when every node is pure
   * (Executor.finishAtAdmission); null when it cannot, and the run is handed off.
   */
  finishAtAdmission?: FinishAtAdmission
  /** The bound on runs admitted and not started yet; none admits without bound. */
  backlog?: Backlog
  /** The organization's secret values, masked in the trigger event and prop values before they are stored. */
  masks?: SecretMasks
  /** Counts the runs this process admits. */
  metrics?: Metrics
  /** Gives each run its span context (in the caller's trace when a traceparent came with it). */
  tracing?: Tracing
}

/** The engine's dispatcher: the port, plus admission inside a caller's transaction. */
export interface EngineDispatcher extends Dispatcher {
  /**
   * Runs `work` in one store transaction in which `admit` admits runs; they start after the
   * commit. A caller can so claim something and admit the run it pays for atomically (a
   * schedule tick): both commit, or neither does.
   */
  transaction<T>(
    work: (tx: SqlExecutor, admit: (request: DispatchRequest) => Promise<DispatchResult>) => Promise<T>,
  ): Promise<T>
}

interface Admitted {
  result: DispatchResult
  events: RecordedEvent[]
  fresh?: FreshRun
  /** The run ended inside the admitting transaction: nothing to hand off. */
  finished?: FinishedRun | null
  /** What started it, for the metrics counted after the commit. */
  started?: { triggerType: string; triggeredBy: string }
}

interface VersionContent {
  content: WorkflowContent
  /** Its variables, the workflow's and the definition's merged (mergedVariableDefs). */
  variableDefs: VariableDef[]
  hash: string
  body: string
}

/** A forked workflow's plain prop values (the sensitive ones are read by nodes, never kept in runs). */
function plainProps(w: WorkflowRow): Record<string, unknown> {
  const text = (w as WorkflowRow & { prop_values?: string }).prop_values
  return text && text !== '{}' ? (JSON.parse(text) as Record<string, unknown>) : {}
}

/**
 * What a retry reuses of a run: the results of the nodes that succeeded, by instance key, but the
 * trigger's (the event is given again) and loops' (a loop's result is rebuilt from its iterations,
 * so loops run again, reusing their items' nodes).
 */
function reusableNodes(original: RunRow): Record<string, { result: unknown; branch?: string; input?: unknown }> {
  const nodes: Record<string, { result: unknown; branch?: string; input?: unknown }> = {}
  const instances = Object.values(runStateOf(original.snapshot)?.nodes ?? {})
  const loopOwners = new Set(instances.flatMap((n) => n.scope?.map((s) => s.loopId) ?? []))
  for (const n of instances) {
    if (n.status === 'success' && n.key !== original.trigger_node_id && !loopOwners.has(n.nodeId)) {
      nodes[n.key] = { result: n.result, branch: n.branch, input: n.input }
    }
  }
  return nodes
}

export function createDispatcher(deps: DispatcherDeps): EngineDispatcher {
  const { store, clock, ids } = deps
  const contents = new BoundedMap<string, VersionContent>(5000)
  /** Workflows whose last admission locked their row (run controls): their admissions run in turn. */
  const locking = new BoundedMap<string, true>(5000)
  const knownDefinitions = new Set<string>()
  const lastTriggered = createTriggerTimes(store)

  /** Parsed content and definition hash of a version, cached while the version row is unchanged. */
  async function contentOf(
    tx: SqlExecutor,
    workflowId: string,
    version: number,
    knownStamp?: number | null,
  ): Promise<VersionContent> {
    // A simple key lookup, unless the workflow's read brought it (see workflowOf).
    const stamp = knownStamp ?? (await versions.stamp(tx, workflowId, version))
    if (stamp === undefined) throw notFound('workflow version')
    const cacheKey = `${workflowId}:${version}:${stamp}`
    const cached = contents.get(cacheKey)
    if (cached) return cached
    const content = JSON.parse((await versions.content(tx, workflowId, version))!) as WorkflowContent
    const variableDefs = mergedVariableDefs(content)
    const body = canonicalJson({ definition: content.definition, variableDefs })
    const entry = { content, variableDefs, body, hash: await sha256Hex(body) }
    contents.set(cacheKey, entry)
    return entry
  }

  /**
   * The definition an earlier run executed, by its hash. A stored definition keeps no workflow
   * settings, so the content around it is the default one: no run control or payment applies to
   * a pinned version, which only an API run (a retry) asks for.
   */
  async function pinnedContent(tx: SqlExecutor, hash: string): Promise<VersionContent> {
    const stored = await runs.definition(tx, hash)
    if (!stored) throw notFound('definition of the run')
    const { definition, variableDefs } = JSON.parse(stored.body) as {
      definition: Definition
      variableDefs?: VariableDef[]
    }
    return { content: defaultContent(definition), variableDefs: variableDefs ?? [], hash, body: stored.body }
  }

  async function storeDefinition(tx: SqlExecutor, hash: string, body: string) {
    if (knownDefinitions.has(hash)) return
    // Remembered only once committed (see dispatch): a rolled-back batch takes the row with it.
    await runs.storeDefinition(tx, hash, body, clock.now())
  }

  /** The workflow admitting a run; on Postgres with its live version's stamp, saving contentOf a statement. */
  async function workflowOf(
    tx: SqlExecutor,
    req: DispatchRequest,
  ): Promise<{ row: WorkflowRow; liveStamp?: number | null } | undefined> {
    if (store.dialect !== 'postgres') {
      const row = await workflows.byId(tx, req.organizationId, req.workflowId)
      return row && { row }
    }
    const found = await workflows.withLiveStamp(tx, req.organizationId, req.workflowId)
    if (!found) return undefined
    const { live_stamp: liveStamp, ...row } = found
    return { row, liveStamp }
  }

  async function admit(tx: SqlExecutor, req: DispatchRequest, runId: string, eventId: string): Promise<Admitted> {
    const skipped = (reason: string, existing?: string): Admitted => ({
      result: { action: 'skipped', reason, eventId, runId: existing },
      events: [],
    })
    const read = await workflowOf(tx, req)
    let w = read?.row
    if (req.triggerSecret !== undefined && (!w || w.trigger_secret !== req.triggerSecret || w.archived_at !== null))
      throw notFound('webhook')
    if (!w) throw notFound('workflow')
    if (w.archived_at !== null) {
      if (!req.automatic) throw conflict('the workflow is archived; unarchive it to run it')
      return skipped('archived')
    }
    const pinned = typeof req.version === 'object' ? req.version : null
    const version = pinned ? pinned.number : req.version === 'live' ? w.live_version : displayVersion(w)
    if (version === null) {
      if (!req.automatic) throw conflict('the workflow has no live version')
      return skipped('not_published')
    }
    if (req.automatic && w.live_status !== 'active') return skipped(w.paused_reason ?? 'paused')

    // A paid workflow (x402Config) admits an outside caller's run only once it is paid; decided on
    // the content of this transaction, so an x402Config added a moment ago counts, and before the
    // duplicate lookups, so an unpaid caller learns nothing of earlier runs.
    const { content, variableDefs, hash, body } = pinned
      ? await pinnedContent(tx, pinned.definitionHash)
      : await contentOf(tx, w.id, version, version === w.live_version ? read!.liveStamp : undefined)
    if (PAID_ENTRIES.has(req.triggeredBy) && !req.paid && content.x402Config) return skipped(PAYMENT_REQUIRED)
    if (req.idempotencyKey) {
      const existing = await runs.byIdempotencyKey(tx, w.id, req.idempotencyKey)
      if (existing) return skipped('duplicate', existing.id)
    }
    if (req.runId) {
      const existing = await runs.ownerOf(tx, req.runId)
      if (existing) {
        // Another workflow's or another organization's run: answered as any unusable id, so
        // that the answer tells nothing about what exists elsewhere.
        if (existing.workflow_id !== w.id || existing.organization_id !== w.organization_id) throw unusableRunId()
        return skipped('duplicate', existing.id)
      }
    }

    if (!req.automatic && req.version === 'display') checkInput(content.definition, req.event.body)
    // Run controls read and change the workflow row: lock it (Postgres) and read it again. A
    // workflow without them is not locked, so its runs are admitted concurrently.
    const controlled =
      req.automatic && (content.cooldownMs > 0 || w.remain_runs !== null || req.publicCaller !== undefined)
    // Remembered from automatic admissions only: an API run never locks, whatever the workflow's controls.
    if (controlled) locking.set(w.id, true)
    else if (req.automatic) locking.delete(w.id)
    if (controlled && store.dialect === 'postgres') {
      w = (await workflows.lockById(tx, store.dialect, w.id))!
      if (w.live_status !== 'active') return skipped(w.paused_reason ?? 'paused')
    }
    const now = clock.now()
    const events: RecordedEvent[] = []
    const patch: Partial<WorkflowRow> = {}
    // With a cooldown the trigger time decides admissions, so it is written in this transaction;
    // otherwise it is only shown, and written in batches (see lastTriggered).
    if (req.automatic && content.cooldownMs > 0) patch.last_triggered_at = now
    else lastTriggered.note(w.id, now)
    if (req.automatic) {
      if (content.cooldownMs > 0 && w.last_triggered_at !== null && now - w.last_triggered_at < content.cooldownMs)
        return skipped('cooldown')
      if (w.remain_runs !== null) {
        if (w.remain_runs <= 0) return skipped('max_runs_exhausted')
        patch.remain_runs = w.remain_runs - 1
        if (w.remain_runs - 1 === 0) {
          patch.live_status = 'paused'
          patch.paused_reason = 'max_runs_exhausted'
          events.push(
            ...(await deps.recorder.record(tx, [
              workflowPaused({ organizationId: w.organization_id, workflowId: w.id }, 'max_runs_exhausted', now),
            ])),
          )
        }
      }
    }
    if (req.publicCaller) await checkPublicLimits(tx, w.id, content, req.publicCaller, now)
    if (Object.keys(patch).length > 0) await workflows.update(tx, w.id, patch)

    await storeDefinition(tx, hash, body)
    const triggerNodeId = req.triggerNodeId ?? pickTrigger(content.definition, req.event.type)
    const vars = await initialVars(tx, w.id, variableDefs)
    const triggerType = content.definition.nodes[triggerNodeId]?.type ?? req.event.type
    const started = await startRun(tx, {
      runId,
      eventId,
      workflow: w,
      version,
      triggerType,
      triggerNodeId,
      triggeredBy: req.triggeredBy,
      automatic: req.automatic,
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
    })
    events.push(...started.events)
    return {
      result: { action: 'triggered', runId, eventId },
      events,
      fresh: started.fresh,
      finished: started.finished,
      started: { triggerType, triggeredBy: req.triggeredBy },
    }
  }

  /**
   * The one way a run begins, for every admission: the run row, its `run.started`
   * event (sequence 1), and the fresh run handed to the executor after the commit (or, when it
   * ended at once, its whole journal).
   */
  async function startRun(
    tx: SqlExecutor,
    r: {
      runId: string
      eventId: string
      workflow: WorkflowRow
      version: number
      triggerType: string
      triggerNodeId: string
      triggeredBy: TriggeredBy
      automatic: boolean
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
    },
  ): Promise<{ events: RecordedEvent[]; fresh: FreshRun; finished: FinishedRun | null }> {
    const w = r.workflow
    const live = r.version === w.live_version
    const trace = (deps.tracing ?? noTracing).runContext(r.event.headers?.traceparent)
    const row: NewRun = {
      id: r.runId,
      organizationId: w.organization_id,
      workflowId: w.id,
      workflowVersion: r.version,
      triggerType: r.triggerType,
      triggerNodeId: r.triggerNodeId,
      triggeredBy: r.triggeredBy,
      automatic: r.automatic,
      live,
      eventId: r.eventId,
      idempotencyKey: r.idempotencyKey,
      retryOf: r.retryOf,
      definitionHash: r.definitionHash,
      triggerEvent: JSON.stringify(r.event),
      propValues: JSON.stringify(r.props),
      vars: JSON.stringify(r.vars),
      seed: r.seed ? JSON.stringify(r.seed) : null,
      startedAt: r.now,
      owner: deps.owner,
      traceparent: trace.traceparent,
      traceCaller: trace.parent,
    }
    const first: NumberedEvent = {
      type: 'run.started',
      nodeId: null,
      seq: 1,
      at: r.now,
      data: {
        runId: r.runId,
        workflowId: w.id,
        workflowVersion: r.version,
        triggerType: r.triggerType,
        triggerNodeId: r.triggerNodeId,
        triggeredBy: r.triggeredBy,
        eventId: r.eventId,
        retryOf: r.retryOf,
      },
    }
    const fresh: FreshRun = {
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
    }
    // A run of pure nodes ends here: its row is stored in its final state, its journal with its first event.
    const finished = deps.finishAtAdmission
      ? await deps.finishAtAdmission(tx, fresh, first, {
          insert: (state) => runs.insert(tx, { ...row, state }),
          consecutiveFailures: w.consecutive_failures,
        })
      : null
    if (finished) return { events: finished.recorded, fresh, finished }
    await runs.insert(tx, row)
    const events = await deps.recorder.record(tx, [
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
    ])
    return { events, fresh, finished: null }
  }

  /** The request with the organization's secret values masked in what the run will keep. */
  async function masked(req: DispatchRequest): Promise<DispatchRequest> {
    if (!deps.masks) return req
    const mask = deps.masks.peek(req.organizationId) ?? (await deps.masks.of(req.organizationId))
    if (mask === noMask) return req
    return { ...req, event: mask(req.event), ...(req.propValues ? { propValues: mask(req.propValues) } : {}) }
  }

  async function dispatch(unmasked: DispatchRequest): Promise<DispatchResult> {
    if (deps.backlog && BACKPRESSURED.has(unmasked.triggeredBy)) deps.backlog.check(unmasked.organizationId)
    const req = await masked(unmasked)
    const runId = req.runId ?? ids.next('run')
    const eventId = req.eventId ?? ids.next('evt')
    // Admissions share their batch concurrently, except where run controls lock the workflow row.
    const concurrent = req.publicCaller === undefined && !locking.has(req.workflowId)
    const admitted = await store.write((tx) => admit(tx, req, runId, eventId), { concurrent })
    afterCommit(admitted)
    return admitted.result
  }

  /** After the commit: announce the events and hand the run to whoever executes it. */
  function afterCommit(admitted: Admitted) {
    publishEvents(deps.bus, admitted.events)
    if (admitted.started)
      deps.metrics?.runsStarted.inc({
        trigger_type: admitted.started.triggerType,
        triggered_by: admitted.started.triggeredBy,
      })
    if (admitted.fresh) {
      knownDefinitions.add(admitted.fresh.meta.definitionHash)
      launch(admitted.fresh, admitted.finished)
    }
  }

  /** After the commit: a run that ended at admission reports its end; any other starts where it executes. */
  function launch(fresh: FreshRun, finished: FinishedRun | null | undefined) {
    if (finished) return finished.committed()
    deps.backlog?.admitted(fresh.meta.organizationId)
    deps.handOff(fresh)
  }

  return {
    dispatch,
    async transaction(work) {
      const { value, admitted } = await store.write(async (tx) => {
        // Built inside the work: a batch that fails runs it again from scratch.
        const admitted: Admitted[] = []
        const value = await work(tx, async (req) => {
          const one = await admit(tx, req, req.runId ?? ids.next('run'), req.eventId ?? ids.next('evt'))
          admitted.push(one)
          return one.result
        })
        return { value, admitted }
      })
      for (const one of admitted) afterCommit(one)
      return value
    },
    async retry(organizationId, runId) {
      const original = await runs.byId(store, organizationId, runId)
      if (!original) throw notFound('run')
      // An admission like any other (masking, the workflow's state, the metrics), of the version
      // and definition the run executed; the backlog does not refuse it (BACKPRESSURED).
      const result = await dispatch({
        organizationId,
        workflowId: original.workflow_id,
        automatic: false,
        triggeredBy: 'retry',
        version: { number: original.workflow_version, definitionHash: original.definition_hash },
        event: JSON.parse(original.trigger_event) as TriggerEvent,
        triggerNodeId: original.trigger_node_id,
        propValues: parseJson(original.prop_values, {}),
        seed: { fromRunId: runId, nodes: reusableNodes(original) },
      })
      if (result.action !== 'triggered') throw conflict(`the run cannot be retried (${result.reason})`)
      return { runId: result.runId }
    },
  }
}
