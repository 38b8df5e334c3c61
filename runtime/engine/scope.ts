/**
 * What expressions see while a node runs: the roots `$trigger`, `root`, `$vars`, `$props`,
 * `$item`, `$index`, `$parent_item`, `$for`, `$workflow`, `$run`, `$nodes` and every node id.
 * A node reference resolves to the instance in the innermost loop iteration that has one, so
 * inside a for-each body `{{transform.result}}` means this item's transform.
 */
import type { Lookup } from '../expressions/index.ts'
import type { Plan } from './plan.ts'
import { instanceKey, type LoopScope, type NodeInstance, type RunState } from './state.ts'

export interface NodeView {
  result: unknown
  payload: unknown
  input: unknown
  error: string | null
  status: string
  branch: string | null
}

const view = (n: NodeInstance): NodeView => ({
  result: n.result,
  payload: n.input,
  input: n.input,
  error: n.error ?? null,
  status: n.status,
  branch: n.branch ?? null,
})

export function findInstance(state: RunState, nodeId: string, scope: readonly LoopScope[]): NodeInstance | undefined {
  for (let depth = scope.length; depth >= 0; depth--) {
    const found = state.nodes[instanceKey(nodeId, scope.slice(0, depth))]
    if (found) return found
  }
  return undefined
}

export const CARD_FIELDS = ['number', 'expMonth', 'expYear', 'cvc', 'holderName'] as const

/**
 * `{{$card.<handle>.<field>}}` resolves to itself: the template stays in the payload, the journal
 * and the streams, and only the outbound request is filled in, at send time (capabilities.ts).
 */
const CARD_TEMPLATES: Record<string, unknown> = new Proxy(
  {},
  {
    get: (_, handle) => (typeof handle === 'string' ? fieldsOf(handle) : undefined),
    getOwnPropertyDescriptor: (_, handle) =>
      typeof handle === 'string'
        ? { value: fieldsOf(handle), enumerable: true, configurable: true, writable: false }
        : undefined,
  },
)
const fieldsOf = (handle: string) => Object.fromEntries(CARD_FIELDS.map((f) => [f, `{{$card.${handle}.${f}}}`]))

export function scopeLookup(
  plan: Plan,
  state: RunState,
  scope: readonly LoopScope[],
  extra?: Record<string, unknown>,
): Lookup {
  const nodeView = (id: string) => {
    const instance = findInstance(state, id, scope)
    return instance ? view(instance) : undefined
  }
  return (root: string) => {
    if (extra && Object.hasOwn(extra, root)) return extra[root]
    switch (root) {
      case '$trigger':
        return state.trigger
      case 'root':
        return nodeView(state.triggerNodeId)
      case '$vars':
        return state.vars
      case '$props':
        return state.props
      case '$item':
        return scope.at(-1)?.item
      case '$index':
        return scope.at(-1)?.index
      case '$parent_item':
        return scope.at(-2)?.item
      case '$for':
        return Object.fromEntries(scope.map((s) => [s.loopId, { item: s.item, index: s.index }]))
      case '$workflow':
        return { id: state.workflowId, version: state.workflowVersion, organizationId: state.organizationId }
      case '$run':
        return { id: state.runId }
      case '$card':
        return CARD_TEMPLATES
      case '$nodes': {
        const out: Record<string, NodeView> = {}
        for (const id of plan.nodes.keys()) {
          const v = nodeView(id)
          if (v) out[id] = v
        }
        return out
      }
      default:
        return plan.nodes.has(root) ? nodeView(root) : undefined
    }
  }
}
