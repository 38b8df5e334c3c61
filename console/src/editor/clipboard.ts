/**
 * Copy and paste of nodes as definition JSON: what is copied is a definition (`{ triggerNodeIds?,
 * nodes }`) holding the chosen nodes and the edges between them; what is pasted may be that, a
 * workflow as the API answers it (`{ definition }`, or its `{ data: { definition } }` envelope),
 * or a single node. Pasted nodes whose ids are taken get fresh ones, with their references.
 */
import { clone, type Definition, type Doc, freshId, type NodeDef, type Point, renameInValue } from './model.ts'

export function copyNodes(doc: Doc, ids: string[]): string {
  const chosen = new Set(ids.filter((id) => doc.definition.nodes[id]))
  const nodes: Record<string, NodeDef> = {}
  for (const id of chosen) {
    const node = clone(doc.definition.nodes[id])
    for (const list of ['children', 'loopBody'] as const) {
      const kept = node[list]?.filter((c) => chosen.has(c))
      if (kept?.length) node[list] = kept
      else delete node[list]
    }
    nodes[id] = node
  }
  const triggers = doc.definition.triggerNodeIds?.filter((t) => chosen.has(t))
  return JSON.stringify({ ...(triggers?.length ? { triggerNodeIds: triggers } : {}), nodes }, null, 2)
}

/** The definition a pasted text holds, or null when it holds none. */
export function readPasted(text: string): Definition | null {
  let value: any
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (value?.data?.definition) value = value.data.definition
  else if (value?.definition?.nodes) value = value.definition
  if (value && typeof value.type === 'string' && !value.nodes) value = { nodes: { [value.type]: value } }
  if (!value?.nodes || typeof value.nodes !== 'object') return null
  const nodes = Object.entries(value.nodes).filter(([, n]: [string, any]) => typeof n?.type === 'string')
  if (nodes.length === 0) return null
  return { ...value, nodes: Object.fromEntries(nodes) }
}

/** Adds the pasted nodes beside `at`; answers their ids in the document. */
export function pasteNodes(doc: Doc, pasted: Definition, at: Point): { doc: Doc; ids: string[] } {
  const taken = new Set<string>()
  const ids = new Map<string, string>()
  for (const id of Object.keys(pasted.nodes)) {
    const fresh = freshId(doc, id, taken)
    taken.add(fresh)
    ids.set(id, fresh)
  }
  let nodes = clone(pasted.nodes)
  for (const [from, to] of ids) if (from !== to) nodes = renameInValue(nodes, from, `\u0000${to}`) as typeof nodes
  const next = clone(doc)
  let row = 0
  for (const [old, node] of Object.entries(nodes)) {
    const id = ids.get(old)!
    const fixed = JSON.parse(JSON.stringify(node).replaceAll('\\u0000', '')) as NodeDef
    for (const list of ['children', 'loopBody'] as const)
      if (fixed[list]) fixed[list] = fixed[list].map((c) => ids.get(c) ?? c).filter((c) => taken.has(c))
    next.definition.nodes[id] = fixed
    next.uiMetadata.nodePositions = {
      ...next.uiMetadata.nodePositions,
      [id]: { x: Math.round(at.x + (row % 4) * 200), y: Math.round(at.y + Math.floor(row / 4) * 100) },
    }
    row++
  }
  const triggers = (pasted.triggerNodeIds ?? []).map((t) => ids.get(t)).filter((t): t is string => !!t)
  if (triggers.length) next.definition.triggerNodeIds = [...(next.definition.triggerNodeIds ?? []), ...triggers]
  return { doc: next, ids: [...taken] }
}
