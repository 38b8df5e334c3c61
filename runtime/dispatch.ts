/**
 * The dispatcher admits runs. In one transaction it checks the workflow's state and run
 * controls (status, cooldown, remaining runs, public limits), deduplicates by idempotency key
 * or client run id, stores the definition snapshot and the run with its first journal event,
 * and answers at once; the executor takes the run from there. A repeated key returns the first
 * run, never a second one.
 *
 * The use cases live in dispatch/: admit.ts decides one admission, start-run.ts begins the run,
 * contents.ts reads the definitions, retry.ts builds a retry's admission. This file composes
 * them: the front door (dispatch), admissions in a caller's transaction, and what follows a commit.
 */
import type { Metrics } from '../core/ports/metrics.ts'
import type { Tracing } from '../core/ports/tracing.ts'
import type { DispatchRequest, DispatchResult } from '../core/ports/engine.ts'
import { conflict, notFound } from '../core/errors.ts'
import { publishEvents } from '../core/domain-events.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Store } from '../core/ports/store.ts'
import { runs } from '../core/store/runs.ts'
import type { Backlog, EngineDispatcher, EventRecorder, FreshRun } from './engine/types.ts'
import type { FinishAtAdmission } from './engine/finish-at-admission.ts'
import { createTriggerTimes } from './admission-rules.ts'
import type { TriggeredBy } from '../core/domain/run.ts'
import { BoundedMap } from '../core/bounded-map.ts'
import { noMask, type SecretMasks } from '../core/security/value-mask.ts'
import { type AdmitDeps, type Admitted, admit } from './dispatch/admit.ts'
import { createVersionContents } from './dispatch/contents.ts'
import { retryRequest } from './dispatch/retry.ts'
import { rateRefused } from './dispatch/flow-control.ts'

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
  /** After commit: a run of this workflow was held back by flow control (its release watches the workflow). */
  onHeld?(workflowId: string): void
  /** After commit: tells whoever executes a run that its inbox has an event (a cancel by flow control). */
  wake?(runId: string): void
}

export function createDispatcher(deps: DispatcherDeps): EngineDispatcher {
  const { store, ids } = deps
  const contents = createVersionContents(deps)
  const a: AdmitDeps = {
    store,
    clock: deps.clock,
    ids,
    recorder: deps.recorder,
    owner: deps.owner,
    tracing: deps.tracing,
    finishAtAdmission: deps.finishAtAdmission,
    contents,
    locking: new BoundedMap<string, true>(5000),
    lastTriggered: createTriggerTimes(store),
  }

  async function dispatch(unmasked: DispatchRequest): Promise<DispatchResult> {
    if (deps.backlog && BACKPRESSURED.has(unmasked.triggeredBy)) deps.backlog.check(unmasked.organizationId)
    const req = await masked(deps, unmasked)
    const runId = req.runId ?? ids.next('run')
    const eventId = req.eventId ?? ids.next('evt')
    // Admissions share their batch concurrently, except where run controls lock the workflow row.
    const concurrent = req.publicCaller === undefined && !a.locking.has(req.workflowId)
    const admitted = await store
      .write((tx) => admit(a, tx, req, runId, eventId), { concurrent })
      .catch((error) => {
        if (rateRefused(error)) deps.metrics?.flowControl.inc({ workflow_id: req.workflowId, outcome: 'refused' })
        throw error
      })
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
    const flow = admitted.flow
    if (flow) deps.metrics?.flowControl.inc({ workflow_id: flow.workflowId, outcome: flow.outcome })
    for (const runId of admitted.wake ?? []) deps.wake?.(runId)
    if (admitted.held) deps.onHeld?.(admitted.held)
    if (admitted.fresh) {
      contents.stored(admitted.fresh.meta.definitionHash)
      launch(deps, admitted.fresh, admitted.finished)
    }
  }

  return {
    dispatch,
    async transaction(work) {
      const { value, admitted } = await store.write(async (tx) => {
        // Built inside the work: a batch that fails runs it again from scratch.
        const admitted: Admitted[] = []
        const value = await work(tx, async (req) => {
          const one = await admit(a, tx, req, req.runId ?? ids.next('run'), req.eventId ?? ids.next('evt'))
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
      const result = await dispatch(retryRequest(original))
      if (result.action === 'skipped') throw conflict(`the run cannot be retried (${result.reason})`)
      return { runId: result.runId }
    },
  }
}

/** The request with the organization's secret values masked in what the run will keep. */
async function masked(deps: DispatcherDeps, req: DispatchRequest): Promise<DispatchRequest> {
  if (!deps.masks) return req
  const mask = deps.masks.peek(req.organizationId) ?? (await deps.masks.of(req.organizationId))
  if (mask === noMask) return req
  return { ...req, event: mask(req.event), ...(req.propValues ? { propValues: mask(req.propValues) } : {}) }
}

/** After the commit: a run that ended at admission reports its end; any other starts where it executes. */
function launch(deps: DispatcherDeps, fresh: FreshRun, finished: Admitted['finished']) {
  if (finished) return finished.committed()
  deps.backlog?.admitted(fresh.meta.organizationId)
  deps.handOff(fresh)
}
