/**
 * Where a verified webhook event goes: the organization of the path; for installation-wide
 * webhooks the organization the event names, or the organizations that hold a connector with
 * the route's data (a chat team → every organization that installed the app in it); and for
 * an event that names a workflow or a run, that workflow's or run's organization. An event that
 * names a workflow or run that does not exist (in the path's organization) is a 400.
 */
import { badRequest } from '../errors.ts'
import type { RoutedEvent } from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import type { WebhookEvent } from '../plugin/webhook.ts'
import { organizations } from '../store/organizations.ts'
import { runs } from '../store/runs.ts'
import { workflows } from '../store/workflows.ts'
import type { ConnectorService } from './connectors.ts'

export interface DestinationDeps {
  store: Store
  connectors: Pick<ConnectorService, 'findByData'>
}

/** What the request says: the webhook's plugin, the path's organization, the connector that verified it. */
export interface Origin {
  source: string
  organizationId: string | null
  connectorId: string | null
}

export function createDestinations(deps: DestinationDeps) {
  async function ownerOf(target: NonNullable<WebhookEvent['target']>, organizationId: string | null): Promise<string> {
    const [id, what] = target.runId ? [target.runId, 'run'] : [target.workflowId!, 'workflow']
    const owner = target.runId
      ? (await runs.ownerOf(deps.store, target.runId))?.organization_id
      : await workflows.organizationOf(deps.store, id)
    if (!owner || (organizationId && owner !== organizationId)) {
      throw badRequest(
        `the event names ${what} ${id}, which does not exist${organizationId ? ' in this organization' : ''}`,
        [{ path: target.runId ? '/runId' : '/workflowId', message: `no such ${what}` }],
      )
    }
    return owner
  }

  /** Organizations (with the connector that routes there) holding a connector with the route's data. */
  async function routed(
    route: NonNullable<WebhookEvent['route']>,
  ): Promise<Array<{ organizationId: string; connectorId: string | null }>> {
    const found = await deps.connectors.findByData(route.connectorType, route.data)
    const byOrg = new Map<string, string | null>()
    // Several such connectors in one organization: the event goes there once, unrestricted.
    for (const c of found) byOrg.set(c.organizationId, byOrg.has(c.organizationId) ? null : c.id)
    return [...byOrg].map(([organizationId, connectorId]) => ({ organizationId, connectorId }))
  }

  return {
    /** The events to route, one per organization it goes to; empty when it goes nowhere. */
    async of(event: WebhookEvent, origin: Origin): Promise<RoutedEvent[]> {
      const base = {
        source: origin.source,
        providerEventId: event.eventId,
        triggerType: event.triggerType,
        body: event.body,
        headers: { ...(event.headers ?? {}) },
        connectorId: origin.connectorId,
        ...(event.connectorRevoked === true ? { connectorRevoked: true } : {}),
      }
      if (event.target)
        return [
          { ...base, organizationId: await ownerOf(event.target, origin.organizationId), target: { ...event.target } },
        ]
      if (origin.organizationId) return [{ ...base, organizationId: origin.organizationId }]
      if (event.organizationId)
        return (await organizations.byId(deps.store, event.organizationId))
          ? [{ ...base, organizationId: event.organizationId }]
          : []
      if (event.route) return (await routed(event.route)).map((d) => ({ ...base, ...d }))
      return []
    },
  }
}
