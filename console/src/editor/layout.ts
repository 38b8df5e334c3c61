/**
 * Where each node is drawn: the position a person gave it (uiMetadata.nodePositions), else the
 * automatic layout, left to right, from dagre.
 */
import dagre from '@dagrejs/dagre'
import type { Doc, Point } from './model.ts'

export const NODE_W = 180
export const NODE_H = 56

export function layout(doc: Doc): Record<string, Point> {
  const saved = doc.uiMetadata.nodePositions ?? {}
  const ids = Object.keys(doc.definition.nodes)
  if (ids.every((id) => saved[id])) return Object.fromEntries(ids.map((id) => [id, saved[id]]))
  const auto = automatic(doc)
  return Object.fromEntries(ids.map((id) => [id, saved[id] ?? auto[id]]))
}

/** The last automatic layout and the shape it was made for: a move or a field edit keeps the shape. */
let last: { shape: string; at: Record<string, Point> } | undefined

/** The graph's nodes and edges as one string, which changes only when the automatic layout would. */
function shapeOf(doc: Doc): string {
  const parts: string[] = []
  for (const [id, node] of Object.entries(doc.definition.nodes))
    parts.push(`${id}>${[...(node.children ?? []), ...(node.loopBody ?? [])].join(',')}`)
  return parts.join(';')
}

/** Every node's place from dagre, laid out again only when the graph's shape changed (dagre takes long on large graphs). */
function automatic(doc: Doc): Record<string, Point> {
  const shape = shapeOf(doc)
  if (last?.shape === shape) return last.at
  const graph = new dagre.graphlib.Graph()
  graph.setGraph({ rankdir: 'LR', nodesep: 30, ranksep: 70, marginx: 20, marginy: 20 })
  graph.setDefaultEdgeLabel(() => ({}))
  for (const id of Object.keys(doc.definition.nodes)) graph.setNode(id, { width: NODE_W, height: NODE_H })
  for (const [id, node] of Object.entries(doc.definition.nodes))
    for (const child of [...(node.children ?? []), ...(node.loopBody ?? [])])
      if (doc.definition.nodes[child]) graph.setEdge(id, child)
  dagre.layout(graph)
  const at: Record<string, Point> = {}
  for (const id of Object.keys(doc.definition.nodes)) {
    const n = graph.node(id)
    at[id] = { x: n.x - NODE_W / 2, y: n.y - NODE_H / 2 }
  }
  last = { shape, at }
  return at
}
