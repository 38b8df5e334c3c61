/**
 * The selected node's side panel (the panel/ folder builds it): this gathers what it is given,
 * the node, its catalog entry, its problems and the nodes upstream for expression completion,
 * with their results in the run being looked at; under it, the node's part of that run.
 */
import type { Entry, Problem } from './io.ts'
import { type Doc, isTrigger, upstreamOf } from './model.ts'
import { NodePanel } from './panel/node-panel.tsx'
import type { RunView } from './run-state.ts'
import { NodeRunView } from './run-view.tsx'

export interface SideProps {
  workflowId: string
  doc: Doc
  nodeId: string
  catalog: Map<string, Entry>
  problems: Problem[]
  /** The run being looked at: expressions complete and preview against it. */
  runs: RunView
  /** Saves unsaved edits before a node runs again. */
  beforeTest(): Promise<void>
  onChange(pointer: string, value: unknown): void
  onRename(newId: string): void
}

export function SidePanel({
  workflowId,
  doc,
  nodeId,
  catalog,
  problems,
  runs,
  beforeTest,
  onChange,
  onRename,
}: SideProps) {
  const node = doc.definition.nodes[nodeId]
  const run = runs.whole
  const upstream = upstreamOf(doc, nodeId).map((id) => {
    const type = doc.definition.nodes[id].type
    return { id, type, resultSchema: catalog.get(type)?.resultSchema, lastResult: run?.nodes?.[id]?.result }
  })
  const lastRun = run?.nodes
    ? {
        id: run.id,
        nodes: run.nodes,
        triggerEvent: run.nodes[run.triggerNodeId]?.result,
        vars: run.vars,
        props: run.propValues,
      }
    : undefined
  const trigger = isTrigger(doc, nodeId)
  return (
    <aside class="side-panel" aria-label={`node ${nodeId}`}>
      <NodePanel
        key={nodeId}
        workflowId={workflowId}
        nodeId={nodeId}
        node={node}
        isTrigger={trigger}
        entry={catalog.get(node.type)}
        problems={problems}
        upstream={upstream}
        lastRun={lastRun}
        onChange={onChange}
        onRename={onRename}
      />
      <NodeRunView
        workflowId={workflowId}
        nodeId={nodeId}
        isTrigger={trigger}
        run={runs.run}
        whole={runs.whole}
        beforeTest={beforeTest}
      />
    </aside>
  )
}
