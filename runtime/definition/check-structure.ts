/**
 * The structural checks of a definition: node ids and references, the triggerNodeIds rules,
 * node types and their versions, children, loop bodies, branches, parents and cycles. Payloads are checked apart
 * (check-payload.ts), once the graph is known to be acyclic.
 */
import type { Definition } from '../../core/domain/workflow.ts'
import { isNodeId } from '../../core/domain/workflow.ts'
import type { Registry } from '../../core/plugin/registry.ts'

/** Records one problem at a JSON pointer into the definition. */
export type AddProblem = (path: string, message: string) => void

type Node = Definition['nodes'][string]

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/
const ID_RULE = 'a node id is 1 to 64 letters, digits, "_" or "-", and not __proto__, constructor or prototype'

/** Every node id, child, loop-body entry and trigger id is a valid node id. */
export function checkIds(definition: Definition, ids: readonly string[], add: AddProblem): void {
  const references = (value: unknown, at: string) => {
    if (!Array.isArray(value)) return
    value.forEach((ref, i) => {
      if (typeof ref !== 'string' || !isNodeId(ref)) add(`${at}/${i}`, ID_RULE)
    })
  }
  for (const id of ids) {
    if (!isNodeId(id)) {
      add(`/nodes/${id.slice(0, 80)}`, ID_RULE)
      continue
    }
    const node = definition.nodes[id] as { children?: unknown; loopBody?: unknown } | null
    references(node?.children, `/nodes/${id}/children`)
    references(node?.loopBody, `/nodes/${id}/loopBody`)
  }
  references(definition.triggerNodeIds, '/triggerNodeIds')
}

/** The triggerNodeIds rules; returns the trigger node ids. */
export function checkTriggers(definition: Definition, add: AddProblem): string[] {
  const listed = definition.triggerNodeIds
  if (listed === undefined) {
    if (!definition.nodes.root) add('/triggerNodeIds', 'is required unless the single trigger node is named "root"')
    return definition.nodes.root ? ['root'] : []
  }
  if (listed.length === 1 && listed[0] !== 'root')
    add('/triggerNodeIds/0', 'a single-trigger workflow lists the literal "root"')
  if (listed.length > 1 && listed.includes('root'))
    add(
      `/triggerNodeIds/${listed.indexOf('root')}`,
      'a multi-trigger workflow must not use "root" as a trigger node id',
    )
  const seen = new Set<string>()
  listed.forEach((id, i) => {
    if (seen.has(id)) add(`/triggerNodeIds/${i}`, `"${id}" is listed twice`)
    seen.add(id)
    if (!definition.nodes[id]) add(`/triggerNodeIds/${i}`, `"${id}" is not a node of this definition`)
  })
  return listed
}

/** Node types, loop bodies, edges, branches and the one-parent rule. */
export function checkShape(
  registry: Registry,
  definition: Definition,
  triggerIds: readonly string[],
  add: AddProblem,
): void {
  const parents = new Map<string, string[]>()
  for (const [id, node] of Object.entries(definition.nodes)) {
    const at = `/nodes/${id}`
    if (!NODE_ID.test(id)) add(at, 'node ids start with a letter or _ and contain letters, digits, _ and -')
    if (id === 'root' && !triggerIds.includes(id)) add(at, '"root" is reserved for the trigger node')
    const isTrigger = triggerIds.includes(id)
    // A type can be both a trigger and an action (`approval`); the node's place decides which.
    // A version that is not loaded is checkType's to report; the structure is checked against the latest.
    const action = isTrigger ? undefined : (registry.action(node.type, node.typeVersion) ?? registry.action(node.type))
    checkType(registry, node, at, isTrigger, add)
    if (node.loopBody?.length && !action?.loop) add(`${at}/loopBody`, `only a loop node (for-each) has a loopBody`)
    if (action?.loop && !node.loopBody?.length)
      add(`${at}/loopBody`, 'a loop node needs a loopBody: the nodes to run for each item')
    checkEdges(definition, id, node, triggerIds, parents, add)
    checkBranches(definition, id, node, action?.branches, Boolean(action) || isTrigger, add)
  }
  for (const [child, list] of parents) {
    if (list.length > 1 && !list.every((p) => triggerIds.includes(p))) {
      add(
        `/nodes/${child}`,
        `has more than one parent (${list.join(', ')}); a node follows exactly one node, or several trigger nodes`,
      )
    }
  }
}

function checkType(registry: Registry, node: Node, at: string, isTrigger: boolean, add: AddProblem): void {
  const trigger = registry.trigger(node.type)
  const action = isTrigger ? undefined : registry.action(node.type)
  if (isTrigger && !trigger)
    add(
      `${at}/type`,
      registry.action(node.type)
        ? `"${node.type}" is an action, not a trigger type`
        : `unknown trigger type "${node.type}"`,
    )
  if (!isTrigger && !action)
    add(
      `${at}/type`,
      trigger
        ? `"${node.type}" is a trigger type; list this node in triggerNodeIds to use it as a trigger`
        : `unknown node type "${node.type}"`,
    )
  if (node.typeVersion !== undefined && (isTrigger ? trigger : action)) checkVersion(registry, node, at, isTrigger, add)
}

/** A node's `typeVersion` is one a loaded plugin provides of its type. */
function checkVersion(registry: Registry, node: Node, at: string, isTrigger: boolean, add: AddProblem): void {
  const kind = isTrigger ? 'trigger' : 'action'
  const loaded = registry.versions(kind, node.type)
  if (!loaded.includes(node.typeVersion as number))
    add(
      `${at}/typeVersion`,
      `version ${node.typeVersion} of ${kind} "${node.type}" is not loaded (loaded: ${loaded.join(', ')})`,
    )
}

/** Children and loop-body entries name nodes that are not triggers; records each child's parents. */
function checkEdges(
  definition: Definition,
  id: string,
  node: Node,
  triggerIds: readonly string[],
  parents: Map<string, string[]>,
  add: AddProblem,
): void {
  const at = `/nodes/${id}`
  const edges: Array<[string, string]> = [
    ...(node.children ?? []).map((c, i): [string, string] => [c, `${at}/children/${i}`]),
    ...(node.loopBody ?? []).map((c, i): [string, string] => [c, `${at}/loopBody/${i}`]),
  ]
  for (const [child, path] of edges) {
    const target = definition.nodes[child]
    if (!target) {
      add(path, `"${child}" is not a node of this definition`)
      continue
    }
    if (triggerIds.includes(child)) add(path, `"${child}" is a trigger node and cannot be a child`)
    if (!parents.has(child)) parents.set(child, [])
    parents.get(child)!.push(id)
  }
}

/** A child names its branch exactly when its parent has branches, and names one of them. */
function checkBranches(
  definition: Definition,
  id: string,
  node: Node,
  branches: readonly string[] | undefined,
  known: boolean,
  add: AddProblem,
): void {
  for (const child of node.children ?? []) {
    const target = definition.nodes[child]
    if (!target) continue
    if (branches && target.branch === undefined)
      add(`/nodes/${child}/branch`, `is required: a child of "${id}" names its branch (${branches.join(' or ')})`)
    if (branches && target.branch !== undefined && !branches.includes(target.branch))
      add(`/nodes/${child}/branch`, `"${target.branch}" is not a branch of "${id}" (${branches.join(', ')})`)
    if (!branches && target.branch !== undefined && known)
      add(`/nodes/${child}/branch`, `"${id}" (${node.type}) has no branches`)
  }
}

/** Records the first cycle found through children and loop bodies; whether there was one. */
export function findCycle(definition: Definition, add: AddProblem): boolean {
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (id: string): boolean => {
    if (state.get(id) === 'done') return false
    if (state.get(id) === 'open') {
      const loop = [...path.slice(path.indexOf(id)), id]
      add(`/nodes/${id}`, `is part of a cycle: ${loop.join(' → ')}`)
      return true
    }
    state.set(id, 'open')
    path.push(id)
    const node = definition.nodes[id]
    for (const next of [...(node?.children ?? []), ...(node?.loopBody ?? [])])
      if (definition.nodes[next] && visit(next)) return true
    path.pop()
    state.set(id, 'done')
    return false
  }
  return Object.keys(definition.nodes).some((id) => visit(id))
}
