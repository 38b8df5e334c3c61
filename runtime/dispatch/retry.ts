/**
 * Retrying a run: a new admission of the version and definition the run executed, with its
 * trigger event and prop values, reusing the results of the nodes that succeeded.
 */
import type { DispatchRequest, TriggerEvent } from '../../core/ports/engine.ts'
import { parseJson } from '../../core/json.ts'
import type { RunRow } from '../../core/store/runs.ts'
import { runStateOf } from '../engine/stored-snapshot.ts'

/** The admission that retries `original` (an API run, which the backlog does not refuse). */
export function retryRequest(original: RunRow): DispatchRequest {
  return {
    organizationId: original.organization_id,
    workflowId: original.workflow_id,
    automatic: false,
    triggeredBy: 'retry',
    version: { number: original.workflow_version, definitionHash: original.definition_hash },
    event: JSON.parse(original.trigger_event) as TriggerEvent,
    triggerNodeId: original.trigger_node_id,
    propValues: parseJson(original.prop_values, {}),
    seed: { fromRunId: original.id, nodes: reusableNodes(original) },
  }
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
