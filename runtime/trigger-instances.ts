/**
 * Trigger instances (a live version's trigger nodes of a kind: polling, subscribed) as the rows
 * that follow them record them, and what their reconcilers share: reading the live definition,
 * listening to workflow events, and the workflows to look at when a process starts.
 */
import type { Definition } from '../core/domain/workflow.ts'
import type { RecordedEvent } from '../core/domain-events.ts'
import { canonicalJson } from '../core/json.ts'
import type { SqlExecutor } from '../core/ports/store.ts'
import type { AnyTrigger, Registry } from '../core/plugin/registry.ts'
import { versions, type WorkflowRow, workflows } from '../core/store/workflows.ts'
import { triggerIdsOf } from './engine/plan.ts'
import { SCHEDULE_EVENTS } from './schedules/reconcile.ts'

/** A trigger node as its row records it: `config` is the canonical JSON of its payload and connector reference. */
export interface TriggerInstanceConfig {
  nodeId: string
  type: string
  config: string
}

/** The trigger nodes of a definition whose trigger `wants` a row. */
export function triggerInstances(
  registry: Registry,
  definition: Definition,
  wants: (trigger: AnyTrigger) => boolean,
): TriggerInstanceConfig[] {
  const out: TriggerInstanceConfig[] = []
  for (const nodeId of triggerIdsOf(definition)) {
    const node = definition.nodes[nodeId]
    const trigger = node && registry.trigger(node.type)
    if (!trigger || !wants(trigger)) continue
    const config: Record<string, unknown> = { payload: node.payload ?? {} }
    if (node.connector) config.connector = node.connector
    out.push({ nodeId, type: node.type, config: canonicalJson(config) })
  }
  return out
}

/** The definition of a workflow's live version, or null when it has none. */
export async function liveDefinition(tx: SqlExecutor, w: WorkflowRow): Promise<Definition | null> {
  if (w.live_version === null) return null
  const content = await versions.content(tx, w.id, w.live_version)
  return content ? (JSON.parse(content) as { definition: Definition }).definition : null
}

/** The recorder's listener of a reconciler: every workflow event that can start or stop its rows. */
export function onWorkflowEvents(reconcile: (tx: SqlExecutor, workflowId: string, paused: boolean) => Promise<void>) {
  return async (tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void> => {
    for (const e of events) {
      if (e.workflowId && SCHEDULE_EVENTS.has(e.type)) await reconcile(tx, e.workflowId, e.type === 'workflow.paused')
    }
  }
}

/** Workflows to reconcile at start: live versions using a trigger that `wants` rows, and workflows with rows. */
export async function reconcileCandidates(
  db: SqlExecutor,
  registry: Registry,
  wants: (trigger: AnyTrigger) => boolean,
  withRows: string[],
): Promise<string[]> {
  const types = registry
    .triggers()
    .filter(wants)
    .map((t) => t.type)
  const live = types.length === 0 ? [] : await workflows.liveUsingAny(db, types)
  return [...new Set([...live, ...withRows])]
}
