/**
 * A plan: a workflow definition compiled for execution — parents, ancestors, loop bodies,
 * branch names — computed once per definition and cached by the definition's hash.
 * It assumes a definition that passed validation; it never executes anything.
 */
import type { Definition, NodeDefinition } from '../../core/domain/workflow.ts'

export interface PlanNode {
  readonly id: string
  readonly type: string
  readonly def: NodeDefinition
  readonly children: readonly string[]
  readonly loopBody: readonly string[]
  readonly isTrigger: boolean
  /** Nodes that point at this one through `children` or `loopBody`. */
  readonly parents: readonly string[]
  /** The for-each nodes whose body contains this node, outermost first. */
  readonly loops: readonly string[]
}

export interface Plan {
  readonly hash: string
  readonly definition: Definition
  readonly nodes: ReadonlyMap<string, PlanNode>
  readonly triggerIds: readonly string[]
  node(id: string): PlanNode
  /** Every node that completes before `id` starts on some path (loop owners included). */
  ancestors(id: string): ReadonlySet<string>
  /** The nodes of a subtree: `id`, its children and loop bodies, transitively. */
  subtree(id: string): readonly string[]
}

export function triggerIdsOf(definition: Definition): string[] {
  if (definition.triggerNodeIds && definition.triggerNodeIds.length > 0) return [...definition.triggerNodeIds]
  return definition.nodes?.root ? ['root'] : []
}

export function compilePlan(definition: Definition, hash: string): Plan {
  const triggerIds = triggerIdsOf(definition)
  const parents = new Map<string, string[]>()
  for (const [id, node] of Object.entries(definition.nodes)) {
    for (const child of [...(node.children ?? []), ...(node.loopBody ?? [])]) {
      if (!parents.has(child)) parents.set(child, [])
      parents.get(child)!.push(id)
    }
  }
  const loopsOf = new Map<string, string[]>()
  const visitBody = (loopId: string, outer: string[], start: readonly string[], seen: Set<string>) => {
    for (const id of start) {
      if (seen.has(id)) continue
      seen.add(id)
      loopsOf.set(id, [...outer, loopId])
      const node = definition.nodes[id]
      if (!node) continue
      visitBody(loopId, outer, node.children ?? [], seen)
      if (node.loopBody?.length) visitBody(id, [...outer, loopId], node.loopBody, new Set())
    }
  }
  const visitTop = (start: readonly string[], seen: Set<string>) => {
    for (const id of start) {
      if (seen.has(id)) continue
      seen.add(id)
      const node = definition.nodes[id]
      if (!node) continue
      visitTop(node.children ?? [], seen)
      if (node.loopBody?.length) visitBody(id, [], node.loopBody, new Set())
    }
  }
  visitTop(triggerIds, new Set())

  const nodes = new Map<string, PlanNode>()
  for (const [id, def] of Object.entries(definition.nodes)) {
    nodes.set(
      id,
      Object.freeze({
        id,
        type: def.type,
        def,
        children: def.children ?? [],
        loopBody: def.loopBody ?? [],
        isTrigger: triggerIds.includes(id),
        parents: parents.get(id) ?? [],
        loops: loopsOf.get(id) ?? [],
      }),
    )
  }

  const ancestorCache = new Map<string, Set<string>>()
  const ancestors = (id: string): Set<string> => {
    const cached = ancestorCache.get(id)
    if (cached) return cached
    const out = new Set<string>()
    ancestorCache.set(id, out) // guards against cycles in invalid input
    for (const p of parents.get(id) ?? []) {
      out.add(p)
      for (const a of ancestors(p)) out.add(a)
    }
    return out
  }
  const subtreeCache = new Map<string, string[]>()
  const subtree = (id: string): string[] => {
    const cached = subtreeCache.get(id)
    if (cached) return cached
    const out: string[] = []
    const seen = new Set<string>()
    const walk = (n: string) => {
      if (seen.has(n)) return
      seen.add(n)
      out.push(n)
      const def = definition.nodes[n]
      for (const c of [...(def?.loopBody ?? []), ...(def?.children ?? [])]) walk(c)
    }
    walk(id)
    subtreeCache.set(id, out)
    return out
  }

  return Object.freeze({
    hash,
    definition,
    nodes,
    triggerIds,
    node(id: string) {
      const n = nodes.get(id)
      if (!n) throw new DefinitionError(`node "${id}" is not in the definition`)
      return n
    },
    ancestors,
    subtree,
  })
}

/** The stored definition of a run cannot be executed as it is (a run of it fails, it is not retried). */
export class DefinitionError extends Error {
  override readonly name = 'DefinitionError'
}

/** A small LRU of compiled plans. */
export function createPlanCache(limit = 1000) {
  const plans = new Map<string, Plan>()
  return {
    get(hash: string, definition: () => Definition): Plan {
      let plan = plans.get(hash)
      if (plan) {
        plans.delete(hash)
        plans.set(hash, plan)
        return plan
      }
      plan = compilePlan(definition(), hash)
      plans.set(hash, plan)
      if (plans.size > limit) plans.delete(plans.keys().next().value!)
      return plan
    },
    peek: (hash: string) => plans.get(hash),
  }
}
