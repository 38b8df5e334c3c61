/**
 * The four server-sent event streams: a run (summary), a run's execution detail (node inputs and
 * results), an organization's activity, and one workflow's runs. Each event's `id` is its
 * position (the run's journal sequence for run streams, the journal id otherwise); send it back
 * as Last-Event-ID to resume with no gap and no duplicate.
 */
import { type Clock, sleepOn, systemClock } from '../../ports/clock.ts'
import { Elysia } from 'elysia'
import type { Metrics } from '../../ports/metrics.ts'
import { tooManyRequests } from '../../errors.ts'
import type { RecordedEvent } from '../../domain-events.ts'
import type { StreamHub } from '../../ports/streams.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import type { Principal } from '../../services/auth.ts'
import type { RunService } from '../../services/runs.ts'
import { t } from '../schemas.ts'
import { eventForApi } from '../../domain/run-events.ts'
import { encodeFrame, lastEventId, type PushBodyFactory, type SseChannel, sseResponse } from '../sse.ts'

export interface StreamRouteDeps {
  runs: Pick<RunService, 'followRun' | 'runStarted' | 'followWorkflowRuns'>
  hub: StreamHub
  heartbeatMs: number
  maxBufferedBytes: number
  pushBody?: PushBodyFactory
  /** The clock of that wait (tests move it); the system's by default. */
  clock?: Clock
  /** How long a stream of a run that does not exist (yet) waits for it before it closes. Default 60 s. */
  runAppearWaitMs?: number
  /** Streams one API key (or session) may hold open at once; one more is a 429. Default 1,024. */
  maxStreamsPerCaller?: number
  /** Counts the streams open on this process. */
  metrics?: Metrics
}

/** Open streams per caller: a key that opens streams without end is refused before it costs memory. */
function createStreamQuota(max: number, metrics?: Metrics) {
  const open = new Map<string, number>()
  return {
    /** Takes a slot (429 past the cap); the returned function gives it back, once. */
    take(caller: string): () => void {
      const n = open.get(caller) ?? 0
      if (n >= max)
        throw tooManyRequests(
          `at most ${max} streams may be open at once for one API key (or person); close one first`,
          5,
        )
      open.set(caller, n + 1)
      metrics?.streamSubscribers.inc()
      let given = false
      return () => {
        if (given) return
        given = true
        metrics?.streamSubscribers.dec()
        const left = (open.get(caller) ?? 1) - 1
        if (left > 0) open.set(caller, left)
        else open.delete(caller)
      }
    },
  }
}

/**
 * Every subscriber of the same kind gets the same bytes for an event: encoded once, shared.
 * Kinds: run streams (id = sequence) summary or detail, organization streams (id = journal id).
 */
const encoded = new WeakMap<RecordedEvent, Map<string, Uint8Array>>()
function frameOf(e: RecordedEvent, kind: 'run' | 'execution' | 'activity'): Uint8Array {
  let forEvent = encoded.get(e)
  if (!forEvent) encoded.set(e, (forEvent = new Map()))
  let bytes = forEvent.get(kind)
  if (!bytes) {
    const id = kind === 'activity' ? e.id : (e.seq ?? 0)
    bytes = encodeFrame({ id: String(id), event: e.type, data: eventForApi(e, kind === 'execution') })
    forEvent.set(kind, bytes)
  }
  return bytes
}

const sink = (channel: SseChannel, kind: 'run' | 'execution' | 'activity') => ({
  send: (e: RecordedEvent) => channel.sendEncoded(frameOf(e, kind)),
  end: () => channel.close(),
})

const Query = t.Object({ lastEventId: t.Optional(t.String({ maxLength: 30 })) })

export function streamRoutes(auth: AuthPlugin, deps: StreamRouteDeps) {
  const options = { heartbeatMs: deps.heartbeatMs, maxBufferedBytes: deps.maxBufferedBytes, pushBody: deps.pushBody }
  const quota = createStreamQuota(deps.maxStreamsPerCaller ?? 1024, deps.metrics)
  const appearWaitMs = deps.runAppearWaitMs ?? 60_000
  // A person's sessions share one quota, as a key's streams do.
  const callerOf = (principal: Principal) => principal.keyId ?? `user:${principal.userId}`

  async function runStream(
    principal: Principal,
    runId: string,
    request: Request,
    query: string | undefined,
    detail: boolean,
  ) {
    const organizationId = principal.organizationId
    const { started } = await deps.runs.followRun(principal, runId, detail)
    const after = lastEventId(request, query) ?? 0
    const release = quota.take(callerOf(principal))
    return sseResponse({
      ...options,
      async open(channel) {
        const stop = await deps.hub.subscribeRun(
          organizationId,
          runId,
          after,
          sink(channel, detail ? 'execution' : 'run'),
        )
        if (!stop) {
          channel.close()
          return () => {}
        }
        // A run id may be followed before the run starts, but not for ever: without a run, the
        // stream ends after a bounded wait.
        const waiting = started ? null : new AbortController()
        if (waiting) {
          sleepOn(deps.clock ?? systemClock, appearWaitMs, waiting.signal).then(
            async () => {
              const exists = await deps.runs.runStarted(principal, runId, detail).catch(() => true)
              if (!exists) channel.close()
            },
            () => {},
          )
        }
        return () => {
          waiting?.abort()
          stop()
        }
      },
      ended: release,
    })
  }

  async function activity(
    principal: Principal,
    request: Request,
    query: string | undefined,
    filter: { workflowId?: string; types?: (type: string) => boolean },
  ) {
    // Without Last-Event-ID the stream starts at the moment of the request, whenever it is read.
    const after = lastEventId(request, query) ?? (await deps.hub.latestEventId())
    const release = quota.take(callerOf(principal))
    return sseResponse({
      ...options,
      async open(channel) {
        return deps.hub.subscribeOrganization(principal.organizationId, filter, after, sink(channel, 'activity'))
      },
      ended: release,
    })
  }

  const RunParams = t.Object({ runId: t.String({ minLength: 1, maxLength: 64 }) })
  const described = (summary: string, description: string, permission: 'run:stream' | 'execution:stream') =>
    doc({ summary, description, tags: ['streams'], permission, produces: 'text/event-stream', errors: [404] })

  return new Elysia({ name: 'routes.streams' })
    .use(auth)
    .get(
      '/v1/runs/:runId/stream',
      ({ principal, params, request, query }) => runStream(principal, params.runId, request, query.lastEventId, false),
      {
        permission: 'run:stream',
        params: RunParams,
        query: Query,
        detail: described(
          'Follow a run as its nodes execute',
          'Run and node events without inputs and results; ends after the run ends. A run id you chose may be followed before the run starts.',
          'run:stream',
        ),
      },
    )
    .get(
      '/v1/executions/:runId/stream',
      ({ principal, params, request, query }) => runStream(principal, params.runId, request, query.lastEventId, true),
      {
        permission: 'execution:stream',
        params: RunParams,
        query: Query,
        detail: described(
          'Follow a run with node-level detail',
          "Like the run stream, with each node's input, result and logs.",
          'execution:stream',
        ),
      },
    )
    .get(
      '/v1/activity/stream',
      ({ principal, request, query }) =>
        activity(principal, request, query.lastEventId, { workflowId: query.workflowId }),
      {
        permission: 'run:stream',
        query: t.Object({
          lastEventId: t.Optional(t.String({ maxLength: 30 })),
          workflowId: t.Optional(t.String({ maxLength: 64 })),
        }),
        detail: described(
          "Follow the organization's activity",
          'Workflow changes and run and node events of every workflow (or one, with workflowId).',
          'run:stream',
        ),
      },
    )
    .get(
      '/v1/workflows/:id/runs/stream',
      async ({ principal, params, request, query }) => {
        await deps.runs.followWorkflowRuns(principal, params.id)
        return activity(principal, request, query.lastEventId, {
          workflowId: params.id,
          types: (type) => type.startsWith('run.'),
        })
      },
      {
        permission: 'run:stream',
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
        query: Query,
        detail: described(
          "Follow one workflow's runs",
          'run.started, run.waiting, run.resumed, run.succeeded, run.partial, run.failed and run.cancelled of one workflow.',
          'run:stream',
        ),
      },
    )
}
