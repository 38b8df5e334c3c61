/**
 * Trigger subscriptions as the API shows them (each one's state, expiry and last error, never
 * its store), and the secrets their stores hold for the webhooks that verify with them (auth kind
 * `subscription`). The runtime's keeper makes and removes them (runtime/subscriptions).
 */
import type { TriggerSubscription, WorkflowSubscriptions } from '../domain/subscription.ts'
import { notFound } from '../errors.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import type { Registry } from '../plugin/registry.ts'
import { type TriggerSubscriptionRow, triggerSubscriptions } from '../store/trigger-subscriptions.ts'
import { workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

export interface SubscriptionService {
  get(caller: Principal, workflowId: string): Promise<WorkflowSubscriptions>
}

function toSubscription(row: TriggerSubscriptionRow): TriggerSubscription {
  return {
    id: row.id,
    triggerNodeId: row.node_id,
    type: row.trigger_type,
    state: row.state,
    // Unset strings are "" in answers (the specification's rule); the row keeps null.
    expiresAt: iso(row.expires_at === null ? null : Number(row.expires_at)) ?? '',
    nextAttemptAt: iso(row.next_attempt_at === null ? null : Number(row.next_attempt_at)) ?? '',
    attempts: Number(row.attempts),
    lastError: row.last_error ?? '',
    createdAt: iso(Number(row.created_at)),
    updatedAt: iso(Number(row.updated_at)),
  }
}

export function createSubscriptionService(deps: { store: Store }): SubscriptionService {
  return guarded(
    'subscriptions',
    { get: ['workflow:read'] },
    {
      async get(caller, workflowId) {
        const w = await workflows.byId(deps.store, caller.organizationId, workflowId)
        if (!w) throw notFound('workflow')
        const rows = await triggerSubscriptions.byWorkflow(deps.store, w.id)
        return { workflowId: w.id, subscriptions: rows.map(toSubscription) }
      },
    },
  )
}

/**
 * The values stored under `key` by an organization's enabled subscriptions of a plugin's
 * triggers, newest first: the secrets a webhook with auth kind `subscription` verifies with.
 */
export function createSubscriptionSecrets(deps: { store: Store; secretBox: SecretBox; registry: Registry }) {
  return async (organizationId: string, pluginId: string, key: string): Promise<string[]> => {
    const types = deps.registry
      .triggers()
      .filter((t) => t.onEnable && deps.registry.pluginOf('trigger', t.type)?.id === pluginId)
      .map((t) => t.type)
    const out: string[] = []
    for (const sealed of await triggerSubscriptions.enabledStores(deps.store, organizationId, types)) {
      const value = (JSON.parse(await deps.secretBox.open(sealed)) as Record<string, unknown>)[key]
      if (typeof value === 'string' && value !== '' && !out.includes(value)) out.push(value)
    }
    return out
  }
}
