/**
 * The canvas: the draft's nodes and edges drawn by React Flow (through preact/compat), with pan,
 * zoom, a minimap and only the visible elements rendered. Each node has an input handle and an
 * output per branch its type offers (or its children use); edges carry their branch as a label.
 * Moves, connections and deletions are handed to the editor, which keeps them for undo.
 */
import {
  applyEdgeChanges,
  applyNodeChanges,
  Background,
  getBezierPath,
  Handle,
  MiniMap,
  Position,
  ReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type EdgeProps,
  type Node,
  type NodeChange,
  type NodeProps,
  useUpdateNodeInternals,
} from '@xyflow/react'
import type { ComponentChildren } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { Entry, Problem } from './io.ts'
import { layout } from './layout.ts'
import { type Doc, isTrigger, LOOP, type Point } from './model.ts'
import { type NodeGlance, RunGlance } from './run-view.tsx'

interface StepData {
  type: string
  title: string
  trigger: boolean
  outputs: string[]
  problems: Problem[]
  run?: NodeGlance
  [key: string]: unknown
}

export interface Selection {
  nodes: string[]
  edge?: { from: string; to: string }
}

export interface CanvasProps {
  doc: Doc
  catalog: Map<string, Entry>
  problems: Record<string, Problem[]>
  /** Each node's status, duration and output glance in the run being looked at. */
  runs?: Record<string, NodeGlance>
  selection: Selection
  onSelect(selection: Selection): void
  onMove(positions: Record<string, Point>): void
  onConnect(from: string, to: string, branch?: string): void
  onDelete(nodes: string[], edges: { from: string; to: string }[]): void
  onDrop(type: string, at: Point, edge?: { from: string; to: string }): void
  /** Receives the canvas's fit-to-view and screen-to-canvas functions once it is drawn. */
  onReady(flow: { fitView(): void; toCanvas(p: Point): Point }): void
  /** Layers drawn in the canvas's coordinates (sticky notes, comments, the diff's marks). */
  children?: ComponentChildren
}

/** The outputs of a node: the plain one, its type's branches, the loop body, and branches its children use. */
function outputsOf(doc: Doc, id: string, entry: Entry | undefined): string[] {
  const node = doc.definition.nodes[id]
  const branches = new Set<string>(entry?.branches ?? [])
  if (entry?.loop || node.loopBody?.length) branches.add(LOOP)
  for (const child of node.children ?? []) {
    const branch = doc.definition.nodes[child]?.branch
    if (branch) branches.add(branch)
  }
  return ['', ...branches]
}

function StepNode({ id, data, selected }: NodeProps<Node<StepData>>) {
  const outputs = data.outputs
  return (
    <div class={`step${data.trigger ? ' trigger' : ''}${selected ? ' selected' : ''}`}>
      {data.trigger ? null : <Handle type="target" position={Position.Left} data-testid={`in:${id}`} />}
      <div class="step-title">{data.title}</div>
      <div class="step-type">{data.type}</div>
      {data.problems.length ? (
        <span
          class="step-problems"
          title={data.problems.map((p) => p.message).join('\n')}
          data-testid={`problems:${id}`}
        >
          {data.problems.length}
        </span>
      ) : null}
      {data.run ? <RunGlance id={id} glance={data.run} /> : null}
      {outputs.map((branch, i) => (
        <Handle
          key={branch}
          type="source"
          position={Position.Right}
          id={branch || null}
          style={{ top: `${((i + 1) * 100) / (outputs.length + 1)}%` }}
          data-testid={branch ? `out:${id}:${branch}` : `out:${id}`}
          title={branch || 'next'}
        >
          {branch ? <span class="handle-label">{branch}</span> : null}
        </Handle>
      ))}
    </div>
  )
}

function LabelledEdge(props: EdgeProps<Edge<{ branch?: string }>>) {
  const { source, target, data, selected } = props
  const [path, x, y] = getBezierPath(props)
  const branch = data?.branch
  return (
    <g
      class={`labelled-edge${selected ? ' selected' : ''}${branch === LOOP ? ' loop' : ''}`}
      data-testid={branch ? `edge:${source}:${target}:${branch}` : `edge:${source}:${target}`}
      data-from={source}
      data-to={target}
    >
      <path d={path} class="react-flow__edge-path" fill="none" />
      <path d={path} class="react-flow__edge-interaction" fill="none" stroke="transparent" stroke-width={20} />
      {branch ? (
        <text x={x} y={y - 6} text-anchor="middle" class="edge-label">
          {branch}
        </text>
      ) : null}
    </g>
  )
}

const nodeTypes = { step: StepNode }
const edgeTypes = { labelled: LabelledEdge }

function buildEdges(doc: Doc): Edge[] {
  const edges: Edge[] = []
  for (const [from, node] of Object.entries(doc.definition.nodes))
    for (const [list, loop] of [
      [node.children, false],
      [node.loopBody, true],
    ] as const)
      for (const to of list ?? []) {
        if (!doc.definition.nodes[to]) continue
        const branch = loop ? LOOP : doc.definition.nodes[to].branch
        edges.push({
          id: `${from}>${to}`,
          source: from,
          target: to,
          sourceHandle: branch ?? null,
          type: 'labelled',
          data: { branch },
          ariaLabel: `edge from ${from} to ${to}${branch ? ` (${branch})` : ''}`,
        })
      }
  return edges
}

function buildNodes(props: CanvasProps, before: Map<string, Node<StepData>>): Node<StepData>[] {
  const { doc, catalog, problems } = props
  const at = layout(doc)
  return Object.entries(doc.definition.nodes).map(([id, node]) => {
    const built = {
      ...before.get(id),
      id,
      type: 'step',
      position: at[id],
      domAttributes: { 'data-testid': `node:${id}` },
      ariaLabel: `${id} (${node.type})`,
      data: {
        type: node.type,
        title: (node.titleOverride as string | undefined) ?? id,
        trigger: isTrigger(doc, id),
        outputs: outputsOf(doc, id, catalog.get(node.type)),
        problems: problems[id] ?? [],
        run: props.runs?.[id],
      },
    }
    // A node that did not change keeps its object, so that it is not drawn again.
    const previous = before.get(id)
    const same =
      previous &&
      previous.position.x === built.position.x &&
      previous.position.y === built.position.y &&
      JSON.stringify(previous.data) === JSON.stringify(built.data)
    return same ? previous : (built as Node<StepData>)
  })
}

const sameSelection = (a: Selection, b: Selection) =>
  a.nodes.join('>') === b.nodes.join('>') && a.edge?.from === b.edge?.from && a.edge?.to === b.edge?.to

/**
 * The canvas's nodes and edges. Their `selected` flags are the selection: the canvas changes them
 * (clicks, Enter on a focused node), and reports them; a selection the editor makes (a node just
 * added) is applied when it differs from what the canvas holds.
 */
function useElements(props: CanvasProps) {
  const [nodes, setNodes] = useState<Node<StepData>[]>([])
  const [edges, setEdges] = useState<Edge[]>([])
  useEffect(() => {
    setNodes((previous) => buildNodes(props, new Map(previous.map((n) => [n.id, n]))))
    setEdges((previous) => {
      const selected = new Set(previous.filter((e) => e.selected).map((e) => e.id))
      return buildEdges(props.doc).map((e) => (selected.has(e.id) ? { ...e, selected: true } : e))
    })
  }, [props.doc, props.catalog, props.problems, props.runs])
  const held: Selection = useMemo(() => {
    const edge = edges.find((e) => e.selected)
    return {
      nodes: nodes.filter((n) => n.selected).map((n) => n.id),
      edge: edge ? { from: edge.source, to: edge.target } : undefined,
    }
  }, [nodes, edges])
  const reported = useRef<Selection>({ nodes: [] })
  useEffect(() => {
    if (sameSelection(held, reported.current)) return
    reported.current = held
    props.onSelect(held)
  }, [held])
  useEffect(() => {
    const wanted = props.selection
    if (wanted === reported.current || sameSelection(wanted, held)) return
    reported.current = wanted
    setNodes((all) => all.map((n) => ({ ...n, selected: wanted.nodes.includes(n.id) })))
    setEdges((all) =>
      all.map((e) => ({ ...e, selected: wanted.edge?.from === e.source && wanted.edge?.to === e.target })),
    )
  }, [props.selection])
  useMeasureNew(nodes)
  return { nodes, setNodes, edges, setEdges }
}

/**
 * Measures the handles of nodes that just appeared once they are drawn: a node added together with
 * edges leaving its named outputs (a rename, a paste) would otherwise keep those edges undrawn.
 */
function useMeasureNew(nodes: Node[]) {
  const update = useUpdateNodeInternals()
  const known = useRef(new Set<string>())
  useEffect(() => {
    const added = nodes.map((n) => n.id).filter((id) => !known.current.has(id))
    known.current = new Set(nodes.map((n) => n.id))
    if (added.length === 0) return
    const frame = requestAnimationFrame(() => update(added))
    return () => cancelAnimationFrame(frame)
  }, [nodes])
}

/** From this many nodes on, only what is in view is drawn; a smaller graph is drawn whole. */
const VIRTUALIZE_FROM = 150

// React Flow's components are typed for React; under preact/compat they are used as they are.
const Flow = ReactFlow as any
const Map_ = MiniMap as any
const Grid = Background as any

export function Canvas(props: CanvasProps) {
  const { nodes, setNodes, edges, setEdges } = useElements(props)
  const onNodesChange = (changes: NodeChange<Node<StepData>>[]) => {
    setNodes((current) => applyNodeChanges(changes, current))
    const moved: Record<string, Point> = {}
    for (const change of changes)
      if (change.type === 'position' && change.position && change.dragging === false) moved[change.id] = change.position
    if (Object.keys(moved).length) props.onMove(moved)
  }
  const onEdgesChange = (changes: EdgeChange[]) => setEdges((current) => applyEdgeChanges(changes, current))
  return (
    // biome-ignore lint/a11y: the canvas takes palette entries dropped on it; the palette offers the same by keyboard
    <div class="canvas" data-testid="canvas" onDragOver={(e) => e.preventDefault()} onDrop={(e) => drop(e, props)}>
      <Flow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={(c: Connection) => props.onConnect(c.source, c.target, c.sourceHandle || undefined)}
        onDelete={({ nodes: n, edges: e }: { nodes: Node[]; edges: Edge[] }) =>
          props.onDelete(
            n.map((x) => x.id),
            e.map((x) => ({ from: x.source, to: x.target })),
          )
        }
        onInit={(flow: any) =>
          props.onReady({
            fitView: () => flow.fitView({ padding: 0.15, duration: 0 }),
            toCanvas: (p: Point) => flow.screenToFlowPosition(p),
          })
        }
        deleteKeyCode={['Delete', 'Backspace']}
        onlyRenderVisibleElements={nodes.length > VIRTUALIZE_FROM}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        minZoom={0.1}
        proOptions={{ hideAttribution: true }}
      >
        <Grid gap={16} size={1} />
        {Object.keys(props.doc.definition.nodes).length > 12 ? <Map_ pannable zoomable ariaLabel="minimap" /> : null}
        {props.children}
      </Flow>
    </div>
  )
}

/** A palette entry dropped on the canvas: on an edge it is inserted there, elsewhere it is added where it fell. */
function drop(event: DragEvent, props: CanvasProps) {
  const type = event.dataTransfer?.getData('application/x-automaton-type')
  if (!type) return
  event.preventDefault()
  const under = document.elementsFromPoint(event.clientX, event.clientY)
  const edge = under.map((e) => e.closest('[data-from]')).find(Boolean)
  const at = { x: event.clientX, y: event.clientY }
  props.onDrop(
    type,
    at,
    edge ? { from: edge.getAttribute('data-from')!, to: edge.getAttribute('data-to')! } : undefined,
  )
}
