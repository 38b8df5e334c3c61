/**
 * A workflow definition drawn as a graph: triggers on the left, each node one column right of
 * its parent, branches labelled on their edges, loop bodies joined by dashed edges. With node
 * states (a run), each node is coloured by its status.
 */
interface NodeDef {
  type: string
  children?: string[]
  loopBody?: string[]
  branch?: string
  titleOverride?: string
}
export interface Definition {
  nodes: Record<string, NodeDef>
  triggerNodeIds?: string[]
}

const W = 160
const H = 44
const GAP_X = 60
const GAP_Y = 22

export function layout(definition: Definition) {
  const ids = Object.keys(definition.nodes)
  const isChild = new Set<string>()
  for (const n of Object.values(definition.nodes))
    for (const c of [...(n.children ?? []), ...(n.loopBody ?? [])]) isChild.add(c)
  const roots = definition.triggerNodeIds?.filter((id) => definition.nodes[id]) ?? ids.filter((id) => !isChild.has(id))
  const depth = new Map<string, number>()
  const queue: Array<[string, number]> = roots.map((id) => [id, 0])
  for (let i = 0; i < queue.length; i++) {
    const [id, d] = queue[i]
    if (depth.has(id) || !definition.nodes[id]) continue
    depth.set(id, d)
    for (const c of [...(definition.nodes[id].children ?? []), ...(definition.nodes[id].loopBody ?? [])])
      queue.push([c, d + 1])
  }
  for (const id of ids) if (!depth.has(id)) depth.set(id, 0)
  const columns: string[][] = []
  for (const id of ids) (columns[depth.get(id)!] ??= []).push(id)
  const at = new Map<string, { x: number; y: number }>()
  columns.forEach((column, x) =>
    column.forEach((id, y) => at.set(id, { x: 10 + x * (W + GAP_X), y: 10 + y * (H + GAP_Y) })),
  )
  const edges: Array<{ from: string; to: string; label?: string; loop: boolean }> = []
  for (const [id, n] of Object.entries(definition.nodes)) {
    for (const c of n.children ?? [])
      if (definition.nodes[c]) edges.push({ from: id, to: c, label: definition.nodes[c].branch, loop: false })
    for (const c of n.loopBody ?? [])
      if (definition.nodes[c]) edges.push({ from: id, to: c, label: 'each', loop: true })
  }
  const width = 20 + columns.length * (W + GAP_X)
  const height = 20 + Math.max(1, ...columns.map((c) => c.length)) * (H + GAP_Y)
  return { at, edges, width, height }
}

export function Graph({ definition, states }: { definition: Definition; states?: Record<string, { status: string }> }) {
  const { at, edges, width, height } = layout(definition)
  return (
    <svg
      class="graph"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="img"
      aria-label="workflow graph"
    >
      {edges.map((e) => {
        const a = at.get(e.from)!
        const b = at.get(e.to)!
        const x1 = a.x + W
        const y1 = a.y + H / 2
        const x2 = b.x
        const y2 = b.y + H / 2
        const mx = (x1 + x2) / 2
        return (
          <g class={e.loop ? 'edge loop' : 'edge'}>
            <path d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`} />
            {e.label ? (
              <text x={mx} y={(y1 + y2) / 2 - 4} text-anchor="middle">
                {e.label}
              </text>
            ) : null}
          </g>
        )
      })}
      {Object.entries(definition.nodes).map(([id, n]) => {
        const p = at.get(id)!
        const status = states?.[id]?.status ?? (states ? 'pending' : 'none')
        return (
          <g class={`node status-${status}`} data-node={id} data-status={status} transform={`translate(${p.x},${p.y})`}>
            <title>{`${id} (${n.type}): ${status}`}</title>
            <rect width={W} height={H} rx="6" />
            <text x="10" y="18" class="node-id">
              {n.titleOverride ?? id}
            </text>
            <text x="10" y="34" class="node-type">
              {n.type}
              {status === 'skipped' ? ' · skipped' : ''}
            </text>
          </g>
        )
      })}
    </svg>
  )
}
