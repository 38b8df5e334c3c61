/**
 * The editor's document, a draft's definition and its uiMetadata, and the edits made to it. Every
 * edit answers a new document and leaves the old one as it was, so that undo keeps each state.
 */

export interface NodeDef {
  type: string
  payload?: Record<string, unknown>
  children?: string[]
  loopBody?: string[]
  branch?: string
  [key: string]: unknown
}
export interface Definition {
  nodes: Record<string, NodeDef>
  triggerNodeIds?: string[]
  [key: string]: unknown
}
export interface Point {
  x: number
  y: number
}
export interface UiMetadata {
  nodePositions?: Record<string, Point>
  [key: string]: unknown
}
export interface Doc {
  definition: Definition
  uiMetadata: UiMetadata
}

const ID_CHARS = /[^A-Za-z0-9_-]/g
/** The branch name of a loop node's body edges. */
export const LOOP = 'loop'

export const clone = <T>(value: T): T => structuredClone(value)

export const isTrigger = (doc: Doc, id: string) => doc.definition.triggerNodeIds?.includes(id) ?? false

/** An unused node id made from `base` (a type or an id): `log`, `log_2`, … */
export function freshId(doc: Doc, base: string, taken: Set<string> = new Set()): string {
  const stem = base.replace(ID_CHARS, '_').slice(0, 56) || 'node'
  const used = (id: string) => id in doc.definition.nodes || taken.has(id)
  if (!used(stem)) return stem
  for (let i = 2; ; i++) if (!used(`${stem}_${i}`)) return `${stem}_${i}`
}

/** The nodes that lead to `id` (its parents). */
export const parentsOf = (doc: Doc, id: string) =>
  Object.entries(doc.definition.nodes)
    .filter(([, n]) => n.children?.includes(id) || n.loopBody?.includes(id))
    .map(([parent]) => parent)

/** Every node upstream of `id`, nearest first. */
export function upstreamOf(doc: Doc, id: string): string[] {
  const seen = new Set<string>()
  const queue = parentsOf(doc, id)
  for (let i = 0; i < queue.length; i++) {
    if (seen.has(queue[i])) continue
    seen.add(queue[i])
    queue.push(...parentsOf(doc, queue[i]))
  }
  return [...seen]
}

/** Adds a node of `type`; the first trigger is `root`, as a single-trigger workflow names it. */
export function addNode(doc: Doc, type: string, trigger: boolean, at?: Point): { doc: Doc; id: string } {
  const next = clone(doc)
  const triggers = next.definition.triggerNodeIds ?? []
  const id = trigger && triggers.length === 0 && !next.definition.nodes.root ? 'root' : freshId(next, type)
  next.definition.nodes[id] = { type, payload: {} }
  if (trigger) next.definition.triggerNodeIds = [...triggers, id]
  if (at) setPosition(next, id, at)
  return { doc: next, id }
}

function setPosition(doc: Doc, id: string, at: Point) {
  doc.uiMetadata.nodePositions = { ...doc.uiMetadata.nodePositions, [id]: { x: Math.round(at.x), y: Math.round(at.y) } }
}

/** Moves nodes to where a person put them. */
export function move(doc: Doc, positions: Record<string, Point>): Doc {
  const next = clone(doc)
  for (const [id, at] of Object.entries(positions)) setPosition(next, id, at)
  return next
}

/** Joins `from` to `to`; a branch (`then`, `else`, …) is the child's, `loop` puts it in the loop body. */
export function connect(doc: Doc, from: string, to: string, branch?: string): Doc {
  if (from === to || isTrigger(doc, to) || !doc.definition.nodes[from] || !doc.definition.nodes[to]) return doc
  const next = clone(doc)
  const parent = next.definition.nodes[from]
  const child = next.definition.nodes[to]
  const list = branch === LOOP ? 'loopBody' : 'children'
  if (!parent[list]?.includes(to)) parent[list] = [...(parent[list] ?? []), to]
  if (branch && branch !== LOOP) child.branch = branch
  else delete child.branch
  return next
}

export function disconnect(doc: Doc, from: string, to: string): Doc {
  const next = clone(doc)
  const parent = next.definition.nodes[from]
  if (!parent) return doc
  for (const list of ['children', 'loopBody'] as const) {
    if (!parent[list]) continue
    parent[list] = parent[list].filter((c) => c !== to)
    if (parent[list].length === 0) delete parent[list]
  }
  return next
}

export function deleteNodes(doc: Doc, ids: string[]): Doc {
  let next = clone(doc)
  for (const id of ids) {
    for (const parent of parentsOf(next, id)) next = disconnect(next, parent, id)
    delete next.definition.nodes[id]
    delete next.uiMetadata.nodePositions?.[id]
    const triggers = next.definition.triggerNodeIds?.filter((t) => t !== id)
    if (triggers?.length) next.definition.triggerNodeIds = triggers
    else delete next.definition.triggerNodeIds
  }
  return next
}

/** Puts a new node of `type` on the edge `from` → `to`: the edge's branch moves to the new node's edge. */
export function insertOnEdge(doc: Doc, from: string, to: string, type: string): { doc: Doc; id: string } {
  const branch = doc.definition.nodes[to]?.branch
  const loop = doc.definition.nodes[from]?.loopBody?.includes(to)
  const added = addNode(disconnect(doc, from, to), type, false, midpoint(doc, from, to))
  let next = connect(added.doc, from, added.id, loop ? LOOP : branch)
  next = connect(next, added.id, to)
  return { doc: next, id: added.id }
}

function midpoint(doc: Doc, a: string, b: string): Point | undefined {
  const p = doc.uiMetadata.nodePositions ?? {}
  if (!p[a] || !p[b]) return undefined
  return { x: (p[a].x + p[b].x) / 2, y: (p[a].y + p[b].y) / 2 + 40 }
}

/** A copy of a node, unconnected, beside it. */
export function duplicate(doc: Doc, id: string): { doc: Doc; id: string } {
  const node = doc.definition.nodes[id]
  const copy = freshId(doc, id)
  const next = clone(doc)
  const { children: _c, loopBody: _l, branch: _b, ...rest } = clone(node)
  next.definition.nodes[copy] = rest as NodeDef
  if (isTrigger(doc, id)) next.definition.triggerNodeIds = [...(next.definition.triggerNodeIds ?? []), copy]
  const at = doc.uiMetadata.nodePositions?.[id]
  if (at) setPosition(next, copy, { x: at.x + 40, y: at.y + 80 })
  return { doc: next, id: copy }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')

/** `text` with every `{{ … }}` reference to node `from` made a reference to `to`. */
export function renameInText(text: string, from: string, to: string): string {
  const reference = new RegExp(`(?<![\\w$.-])${escapeRegExp(from)}(?![\\w-])`, 'g')
  return text.replace(/\{\{[\s\S]*?\}\}/g, (block) => block.replace(reference, to))
}

/** Renames references in every string and every key of a value (an `if` condition keeps expressions as keys). */
export function renameInValue(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return renameInText(value, from, to)
  if (Array.isArray(value)) return value.map((v) => renameInValue(v, from, to))
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [renameInText(k, from, to), renameInValue(v, from, to)]),
    )
  return value
}

/** Renames a node everywhere: its key, edges, triggers, position and every expression naming it. */
export function rename(doc: Doc, from: string, to: string): Doc {
  if (from === to || !doc.definition.nodes[from] || doc.definition.nodes[to]) return doc
  const nodes: Record<string, NodeDef> = {}
  for (const [id, node] of Object.entries(doc.definition.nodes)) {
    const renamed = renameInValue(node, from, to) as NodeDef
    for (const list of ['children', 'loopBody'] as const)
      if (renamed[list]) renamed[list] = renamed[list].map((c) => (c === from ? to : c))
    nodes[id === from ? to : id] = renamed
  }
  const next: Doc = { definition: { ...clone(doc.definition), nodes }, uiMetadata: clone(doc.uiMetadata) }
  if (next.definition.triggerNodeIds)
    next.definition.triggerNodeIds = next.definition.triggerNodeIds.map((t) => (t === from ? to : t))
  const positions = next.uiMetadata.nodePositions
  if (positions?.[from]) {
    positions[to] = positions[from]
    delete positions[from]
  }
  return next
}

/** Sets the value at an RFC 6901 pointer into a node's object (`/payload/message`); undefined removes it. */
export function setAt(doc: Doc, id: string, pointer: string, value: unknown): Doc {
  const next = clone(doc)
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (keys.length === 0 || keys.some((k) => k === '__proto__' || k === 'constructor' || k === 'prototype')) return doc
  let target: any = next.definition.nodes[id]
  for (const key of keys.slice(0, -1)) {
    if (target[key] === null || typeof target[key] !== 'object') target[key] = /^\d+$/.test(key) ? [] : {}
    target = target[key]
  }
  const last = keys[keys.length - 1]
  if (value === undefined) delete target[last]
  else target[last] = clone(value)
  return next
}
