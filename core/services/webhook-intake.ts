/**
 * Integration webhooks, the host's side of the SDK contract (core/plugin/webhook.ts): for one
 * request to a plugin's webhook it finds the organization of the path (404 when unknown),
 * verifies the request (webhook-verify.ts), lets the plugin `receive` it, checks the events it
 * returns, sends each to its organizations (webhook-destinations.ts) through the engine's event
 * router, and answers the Webhook result object (or what the webhook's `answer` makes of it).
 * With several events the answer sums them up: `triggered` when any run started, else
 * `resumed`, else `skipped`; `runIds` lists every run; `eventId` is the leading event's.
 */
import type { Metrics } from '../ports/metrics.ts'
import { badRequest, notFound } from '../errors.ts'
import type { Ids } from '../ports/ids.ts'
import type { EventRouter, RoutedEvent, RoutedResult } from '../ports/engine.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { RegisteredWebhook } from '../plugin/registry.ts'
import type { WebhookContext, WebhookEvent, WebhookReply, WebhookRequest } from '../plugin/webhook.ts'
import { organizations } from '../store/organizations.ts'
import { createDestinations, type DestinationDeps, type Origin } from './webhook-destinations.ts'
import { createWebhookVerifier, type VerifyDeps } from './webhook-verify.ts'

/** The request as received, before its body is parsed. */
export type InboundRequest = Omit<WebhookRequest, 'body'>

export interface WebhookAnswer {
  readonly status: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
}

export interface WebhookIntakeDeps extends Omit<VerifyDeps, 'connectors'>, Omit<DestinationDeps, 'connectors'> {
  connectors: VerifyDeps['connectors'] & DestinationDeps['connectors']
  store: Store
  ids: Ids
  logger: Logger
  router: EventRouter
  /** Counts events by plugin and action. */
  metrics?: Metrics
}

/** Provider event ids longer than this are refused: they key deduplication. */
export const MAX_PROVIDER_EVENT_ID = 255

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
const isText = (v: unknown, max = 10_000) => typeof v === 'string' && v.length > 0 && v.length <= max
const isStringMap = (v: unknown) => isRecord(v) && Object.values(v).every((x) => typeof x === 'string')
/** A plugin's answer as an HTTP answer; a status outside 200–599 becomes 200. */
const answerOf = (r: {
  status?: number
  body: unknown
  headers?: Readonly<Record<string, string>>
}): WebhookAnswer => ({
  status: Number.isInteger(r.status) && r.status! >= 200 && r.status! <= 599 ? r.status! : 200,
  body: r.body,
  headers: { ...(r.headers ?? {}) },
})

/** What is wrong with an event a plugin returned, or null. */
function eventProblem(e: unknown): string | null {
  if (!isRecord(e)) return 'an event must be an object'
  if (!isText(e.triggerType, 100)) return 'an event needs a triggerType'
  if (!isText(e.eventId, MAX_PROVIDER_EVENT_ID))
    return `an event needs an eventId of 1 to ${MAX_PROVIDER_EVENT_ID} characters`
  if (e.headers !== undefined && !isStringMap(e.headers)) return 'event headers must map names to strings'
  if (e.organizationId !== undefined && !isText(e.organizationId, 64)) return 'organizationId must be an id'
  if (
    e.route !== undefined &&
    (!isRecord(e.route) || !isText(e.route.connectorType, 100) || !isStringMap(e.route.data))
  )
    return 'route must be { connectorType, data }'
  if (
    e.target !== undefined &&
    (!isRecord(e.target) || !(isText(e.target.workflowId, 64) || isText(e.target.runId, 64)))
  )
    return 'target must name a workflowId or a runId'
  return null
}

export function summarize(results: readonly RoutedResult[]): RoutedResult {
  if (results.length === 1) return results[0]
  const lead =
    results.find((r) => r.action === 'triggered') ?? results.find((r) => r.action === 'resumed') ?? results[0]
  const runIds = [...new Set(results.flatMap((r) => r.runIds))]
  return lead.action === 'skipped'
    ? { action: 'skipped', eventId: lead.eventId, reason: lead.reason, runIds }
    : { action: lead.action, eventId: lead.eventId, runIds }
}

/** The intake of integration webhooks: verified, read by their plugin, routed, and answered. */
export interface WebhookIntake {
  /**
   * Handles one inbound request for a plugin's webhook: verifies it, lets the plugin read it,
   * routes its events to their organizations, and answers as the plugin wants (the routing
   * result by default).
   */
  handle(entry: RegisteredWebhook, inbound: InboundRequest): Promise<WebhookAnswer>
}

export function createWebhookIntake(deps: WebhookIntakeDeps): WebhookIntake {
  const verifier = createWebhookVerifier(deps)
  const destinations = createDestinations(deps)

  function toRequest(inbound: InboundRequest): WebhookRequest {
    let body: unknown
    try {
      body = inbound.rawBody ? JSON.parse(inbound.rawBody) : undefined
    } catch {
      body = undefined
    }
    return Object.freeze({ ...inbound, body })
  }

  /** `receive`, with its reply checked: a plugin that throws or answers nonsense is logged and the request refused. */
  async function received(
    entry: RegisteredWebhook,
    request: WebhookRequest,
    ctx: WebhookContext,
  ): Promise<WebhookReply> {
    const fail = (problem: string) => {
      deps.logger.warn('a webhook receive() failed', { plugin: entry.pluginId, webhook: entry.webhook.name, problem })
      const message = `the ${entry.pluginId} webhook could not read this request`
      return badRequest(message, [{ message }])
    }
    let reply: unknown
    try {
      reply = await entry.webhook.receive(request, ctx)
    } catch (error) {
      throw fail(error instanceof Error ? error.message : String(error))
    }
    if (isRecord(reply) && isRecord(reply.respond)) return reply as WebhookReply
    if (!isRecord(reply) || !Array.isArray(reply.events)) throw fail('receive() must return { events } or { respond }')
    const problem = reply.events.map(eventProblem).find((p) => p !== null)
    if (problem) throw fail(problem)
    return reply as WebhookReply
  }

  async function route(events: readonly WebhookEvent[], origin: Origin): Promise<RoutedResult> {
    // Every destination first: a bad target refuses the request before anything is routed.
    const routed: RoutedEvent[] = (await Promise.all(events.map((e) => destinations.of(e, origin)))).flat()
    if (routed.length === 0) {
      // Nothing is stored for no organization: the event id answered is the one this log line carries.
      const eventId = deps.ids.next('evt')
      const reason = events.length === 0 ? 'no_events' : 'no_organization'
      deps.logger.info('integration webhook skipped', {
        eventId,
        reason,
        source: origin.source,
        providerEventIds: events.map((e) => e.eventId).slice(0, 10),
      })
      return { action: 'skipped', eventId, reason, runIds: [] }
    }
    return summarize(await Promise.all(routed.map((e) => deps.router.route(e))))
  }

  return {
    async handle(entry: RegisteredWebhook, inbound: InboundRequest): Promise<WebhookAnswer> {
      const organizationId = inbound.params.orgId ?? null
      if (organizationId !== null && !(await organizations.byId(deps.store, organizationId)))
        throw notFound('organization')
      const request = toRequest(inbound)
      const verified = await verifier.verify(entry, request, organizationId)
      const reply = await received(entry, request, verified.ctx)
      if ('respond' in reply) return answerOf(reply.respond)
      const result = await route(reply.events, {
        source: entry.pluginId,
        organizationId,
        connectorId: verified.connectorId,
      })
      deps.metrics?.integrationEvents.inc({ source: entry.pluginId, action: result.action })
      if (!entry.webhook.answer) return { status: 200, body: result, headers: {} }
      try {
        return answerOf(entry.webhook.answer(result, request))
      } catch (error) {
        deps.logger.warn('a webhook answer() threw; answering the Webhook result', {
          plugin: entry.pluginId,
          error: String(error),
        })
        return { status: 200, body: result, headers: {} }
      }
    },
  }
}
