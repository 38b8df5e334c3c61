/**
 * One call of a trigger's `onEnable` or `onDisable` for a subscription row: the handler tools
 * (the guarded HTTP client, bound to a deadline), the trigger's connector, the public URL of its
 * webhook, and the row's key-value store, opened before the call and sealed after it.
 */
import type { Definition } from '../../core/domain/workflow.ts'
import { TargetRefusedError } from '../../core/ports/http-client.ts'
import type { SecretBox } from '../../core/ports/secret-box.ts'
import type { TriggerStore } from '../../core/plugin/lifecycle.ts'
import type { AnyTrigger, Registry } from '../../core/plugin/registry.ts'
import { triggerInstances, type TriggerInstanceConfig } from '../trigger-instances.ts'
import { connectorFor, deadline, handlerTools, type PluginHostDeps } from '../plugin-host/tools.ts'

export interface SubscriptionCallDeps extends PluginHostDeps {
  registry: Registry
  secretBox: SecretBox
  /** AUTOMATON_PUBLIC_URL: where the platform reaches this server; null when unset. */
  publicUrl: string | null
  /** How long one call may take (default 30 s). */
  callTimeoutMs?: number
}

/** A trigger node of a definition whose trigger has `onEnable`, as its row records it. */
export type SubscribedInstance = TriggerInstanceConfig

/** What a call is about: a row, or an instance about to get one. */
export interface SubscriptionTarget {
  organization_id: string
  workflow_id: string
  node_id: string
  trigger_type: string
  config: string
  sealed_store: string | null
}

/** The outcome of a call: the store to keep (sealed), and the expiry onEnable declared. */
export interface CallResult {
  sealedStore: string | null
  expiresAt: number | null
}

/** The platform could not be reached: an HTTP call of the handler failed on the way (not refused by the guard). */
export class PlatformUnreachableError extends Error {
  override name = 'PlatformUnreachableError'
}

export const hasSubscription = (registry: Registry, type: string) => !!registry.trigger(type)?.onEnable

/** The trigger nodes of a definition that need a subscription. */
export const subscribedInstances = (registry: Registry, definition: Definition): SubscribedInstance[] =>
  triggerInstances(registry, definition, (trigger) => !!trigger.onEnable)

/** The public URL of the webhook a trigger's platform posts to, or null. */
export function webhookUrlOf(deps: SubscriptionCallDeps, trigger: AnyTrigger, organizationId: string): string | null {
  if (!deps.publicUrl) return null
  const plugin = deps.registry.pluginOf('trigger', trigger.type)
  const own = deps.registry.webhooks().filter((w) => w.pluginId === plugin?.id)
  const entry = trigger.webhook ? own.find((w) => w.webhook.name === trigger.webhook) : own.length === 1 ? own[0] : null
  if (!entry) return null
  return deps.publicUrl.replace(/\/+$/, '') + entry.webhook.path.replace(':orgId', encodeURIComponent(organizationId))
}

async function openStore(deps: SubscriptionCallDeps, sealed: string | null): Promise<Map<string, string>> {
  if (!sealed) return new Map()
  return new Map(Object.entries(JSON.parse(await deps.secretBox.open(sealed)) as Record<string, string>))
}

function storeOver(values: Map<string, string>): TriggerStore {
  return {
    get: async (key) => values.get(key) ?? null,
    async set(key, value) {
      if (typeof value !== 'string') throw new TypeError('a trigger store keeps strings only')
      values.set(key, value)
    },
    delete: async (key) => void values.delete(key),
  }
}

/**
 * Calls `onEnable` or `onDisable` for a target; throws what the handler threw, or a
 * PlatformUnreachableError when one of its HTTP calls could not reach the platform.
 */
export async function callLifecycle(
  deps: SubscriptionCallDeps,
  which: 'onEnable' | 'onDisable',
  target: SubscriptionTarget,
  stopping?: AbortSignal,
): Promise<CallResult> {
  const trigger = deps.registry.trigger(target.trigger_type)
  if (!trigger) throw new Error(`no loaded plugin provides the trigger "${target.trigger_type}"`)
  const values = await openStore(deps, target.sealed_store)
  const signal = deadline(deps.callTimeoutMs ?? 30_000, stopping)
  const fields = { workflowId: target.workflow_id, nodeId: target.node_id, trigger: target.trigger_type, call: which }
  const tools = handlerTools(deps, signal, fields)
  let unreachable: unknown = null
  const http = {
    async send(request: Parameters<typeof tools.http.send>[0]) {
      try {
        return await tools.http.send(request)
      } catch (error) {
        if (!(error instanceof TargetRefusedError)) unreachable = error
        throw error
      }
    },
  }
  const config = JSON.parse(target.config) as {
    payload: Record<string, unknown>
    connector?: { type?: string; id?: string }
  }
  let expiresAt: number | null = null
  try {
    const connector = await connectorFor(deps, target.organization_id, trigger.connector, config.connector)
    const ctx = {
      ...tools,
      http,
      payload: config.payload,
      connector,
      webhookUrl: webhookUrlOf(deps, trigger, target.organization_id),
      store: storeOver(values),
      trigger: { organizationId: target.organization_id, workflowId: target.workflow_id, nodeId: target.node_id },
    }
    if (which === 'onEnable') {
      const result = await trigger.onEnable?.(ctx)
      if (typeof result?.expiresAt === 'number' && Number.isFinite(result.expiresAt)) expiresAt = result.expiresAt
    } else {
      await trigger.onDisable?.(ctx)
    }
  } catch (error) {
    if (unreachable !== null) {
      throw new PlatformUnreachableError(unreachable instanceof Error ? unreachable.message : String(unreachable))
    }
    throw error
  }
  const sealedStore = values.size > 0 ? await deps.secretBox.seal(JSON.stringify(Object.fromEntries(values))) : null
  return { sealedStore, expiresAt }
}
