/**
 * The SubscriptionEnabler port: before a change makes a version live, calls `onEnable` for each
 * trigger instance that has one and is not already enabled with the same configuration, and
 * records what it made. A refusal undoes what this attempt enabled (handed to the keeper's
 * onDisable) and answers 400 with the plugin's message, or 502 when its platform was unreachable.
 */
import { AppError, errorMessage } from '../../core/errors.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Store } from '../../core/ports/store.ts'
import type { EnabledSubscriptions, SubscriptionEnabler } from '../../core/ports/subscriptions.ts'
import { type TriggerSubscriptionRow, triggerSubscriptions } from '../../core/store/trigger-subscriptions.ts'
import {
  type CallResult,
  callLifecycle,
  PlatformUnreachableError,
  type SubscribedInstance,
  type SubscriptionCallDeps,
  subscribedInstances,
} from './calls.ts'

const NOTHING: EnabledSubscriptions = { undo: async () => {} }

/** When to renew a subscription that expires at `expiresAt`: at 80% of the time left, a second from now at the soonest. */
export function renewalAt(now: number, expiresAt: number | null): number | null {
  if (expiresAt === null) return null
  return now + Math.max(1000, Math.floor(0.8 * (expiresAt - now)))
}

/** The publish's answer to a refusal: the plugin's message (400), or 502 when its platform was unreachable. */
function refusal(x: SubscribedInstance, error: unknown): AppError {
  const path = `/definition/nodes/${x.nodeId}`
  if (error instanceof PlatformUnreachableError) {
    const message = `the platform of trigger ${x.nodeId} (${x.type}) could not be reached: ${error.message}`
    return new AppError(502, message, [{ path, message }])
  }
  const message = errorMessage(error)
  return new AppError(400, message, [{ path, message }])
}

export function createEnabler(
  deps: SubscriptionCallDeps & { store: Store; ids: Ids },
  onUndo: () => void,
): SubscriptionEnabler['enable'] {
  const same = (r: TriggerSubscriptionRow, x: SubscribedInstance) =>
    r.node_id === x.nodeId && r.trigger_type === x.type && r.config === x.config

  return async function enable(
    organizationId: string,
    workflowId: string,
    definition: Parameters<SubscriptionEnabler['enable']>[2],
  ) {
    const want = subscribedInstances(deps.registry, definition)
    if (want.length === 0) return NOTHING
    const rows = await triggerSubscriptions.live(deps.store, workflowId)
    const made: string[] = []
    const undo = async () => {
      if (made.length === 0) return
      const at = deps.clock.now()
      await deps.store.write(async (tx) => {
        for (const id of made) {
          const row = await triggerSubscriptions.get(tx, id)
          if (row) await triggerSubscriptions.leave(tx, row, at)
        }
      })
      onUndo()
    }
    for (const x of want) {
      if (rows.some((r) => r.state === 'enabled' && same(r, x))) continue
      const target = {
        organization_id: organizationId,
        workflow_id: workflowId,
        node_id: x.nodeId,
        trigger_type: x.type,
        config: x.config,
        sealed_store: null,
      }
      let result: CallResult
      try {
        result = await callLifecycle(deps, 'onEnable', target)
      } catch (error) {
        await undo()
        throw refusal(x, error)
      }
      const id = deps.ids.next('sub')
      const at = deps.clock.now()
      await deps.store.write((tx) =>
        triggerSubscriptions.insert(tx, {
          id,
          organizationId,
          workflowId,
          nodeId: x.nodeId,
          triggerType: x.type,
          config: x.config,
          state: 'enabled',
          sealedStore: result.sealedStore,
          expiresAt: result.expiresAt,
          nextAttemptAt: renewalAt(at, result.expiresAt),
          at,
        }),
      )
      made.push(id)
    }
    return { undo }
  }
}
