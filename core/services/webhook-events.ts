/**
 * The events integration webhooks received: listing and reading them (newest first, scoped to
 * the caller's organization) and replaying one. A replay routes the stored event again as a new
 * event (`replayOf` names the original): it matches the workflows and waiting runs of now, and
 * is never a duplicate, so it starts runs again.
 */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { WebhookEventFilter, WebhookEventRecord } from '../domain/webhook-event.ts'
import { notFound } from '../errors.ts'
import { parseJson } from '../json.ts'
import type { EventRouter, RoutedResult } from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import { type WebhookEventRow, webhookEvents } from '../store/webhook-events.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

export function toWebhookEvent(row: WebhookEventRow): WebhookEventRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    source: row.source,
    providerEventId: row.provider_event_id,
    triggerType: row.trigger_type,
    // Unset strings are "" in answers (the specification's rule); the row keeps null.
    connectorId: row.connector_id ?? '',
    target: parseJson(row.target, null),
    body: parseJson(row.body, null),
    headers: parseJson(row.headers, {}),
    receivedAt: iso(row.received_at),
    action: row.action as WebhookEventRecord['action'],
    reason: row.reason ?? '',
    problems: parseJson(row.problems, []),
    runIds: parseJson(row.run_ids, []),
    workflowIds: parseJson(row.workflow_ids, []),
    replayOf: row.replay_of ?? '',
  }
}

/** The inbound webhook events an organization received: listing, reading and replaying them. */
export interface WebhookEventService {
  /** The events matching a filter, a page at a time. */
  list(caller: Principal, page: PageRequest, filter: WebhookEventFilter): Promise<Page<WebhookEventRecord>>
  /** One event, or a 404. */
  get(caller: Principal, id: string): Promise<WebhookEventRecord>
  /** Routes the event again, as a new event that names the one it replays. */
  replay(caller: Principal, id: string): Promise<RoutedResult>
}

export function createWebhookEventService(deps: { store: Store; router: EventRouter }): WebhookEventService {
  async function load(caller: Principal, id: string): Promise<WebhookEventRow> {
    const row = await webhookEvents.byId(deps.store, caller.organizationId, id)
    if (!row) throw notFound('webhook event')
    return row
  }

  return guarded<WebhookEventService>(
    'webhookEvents',
    {
      list: ['run:read'],
      get: ['run:read'],
      replay: ['workflow:execute'],
    },
    {
      async list(caller: Principal, page: PageRequest, filter: WebhookEventFilter): Promise<Page<WebhookEventRecord>> {
        const result = toPage(await webhookEvents.list(deps.store, caller.organizationId, page, filter), page)
        return { ...result, items: result.items.map(toWebhookEvent) }
      },

      async get(caller: Principal, id: string): Promise<WebhookEventRecord> {
        return toWebhookEvent(await load(caller, id))
      },

      async replay(caller: Principal, id: string): Promise<RoutedResult> {
        const row = await load(caller, id)
        return deps.router.route({
          organizationId: row.organization_id,
          source: row.source,
          providerEventId: row.provider_event_id,
          triggerType: row.trigger_type,
          body: parseJson(row.body, null),
          headers: parseJson(row.headers, {}),
          connectorId: row.connector_id,
          target: parseJson(row.target, null),
          replayOf: row.id,
        })
      },
    },
  )
}
