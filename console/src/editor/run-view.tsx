/**
 * A node's part of the run being looked at: on the canvas, a line under the node with its status,
 * duration and a glance at its output (a skipped node says so); in the side panel, its status,
 * error, output and input as JSON trees, and "Run this node again", which runs the node of the
 * draft over that run's inputs and shows the outcome beside it without changing the run.
 */
import { useEffect, useState } from 'preact/hooks'
import { ErrorBox, StatusBadge } from '../ui.tsx'
import { JsonTree } from './json-tree.tsx'
import { durationOf, type NodeOutcome, type NodeState, type RunRecord, testNode } from './run-io.ts'
import { mountRunStyle } from './run-style.ts'

/** What the canvas shows of a node in the run being looked at: small, compared on every draw. */
export interface NodeGlance {
  status: string
  durationMs?: number
  preview?: string
  test: boolean
}

const GLANCE = 48

/** A glance at a value: its first keys and scalars, never walking more than a few of them. */
export function glanceOf(value: unknown, room = GLANCE): string {
  if (value === undefined) return ''
  if (typeof value !== 'object' || value === null) {
    const text = JSON.stringify(value) ?? ''
    return text.length > room ? `${text.slice(0, room - 1)}…` : text
  }
  const array = Array.isArray(value)
  let text = array ? '[' : '{'
  let seen = 0
  for (const key in value) {
    if (text.length >= room) break
    const item = (value as Record<string, unknown>)[key]
    const inner = typeof item === 'object' && item !== null ? (Array.isArray(item) ? '[…]' : '{…}') : glanceOf(item, 16)
    text += `${seen++ ? ', ' : ''}${array ? '' : `${key}: `}${inner}`
  }
  text += array ? ']' : '}'
  return text.length > room ? `${text.slice(0, room - 1)}…` : text
}

/** The glances of every node of a run; the outputs are read from the whole run once it is there. */
export function glancesOf(run: RunRecord | null): Record<string, NodeGlance> | undefined {
  if (!run?.nodes) return undefined
  const out: Record<string, NodeGlance> = {}
  for (const [id, node] of Object.entries(run.nodes))
    out[id] = {
      status: node.status,
      durationMs: durationOf(node),
      preview: node.status === 'skipped' ? undefined : glanceOf(node.result),
      test: run.test === true,
    }
  return out
}

const ms = (n: number | undefined) => (n === undefined ? '' : n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`)

export function RunGlance({ id, glance }: { id: string; glance: NodeGlance }) {
  mountRunStyle()
  return (
    <div class={`step-run status-${glance.status}`} data-testid={`run:${id}`} data-status={glance.status}>
      <span class="step-run-status">{glance.status === 'skipped' ? 'skipped' : glance.status}</span>
      {glance.durationMs !== undefined ? <span class="step-run-time">{ms(glance.durationMs)}</span> : null}
      {glance.preview ? <code class="step-run-output">{glance.preview}</code> : null}
    </div>
  )
}

export interface NodeRunProps {
  workflowId: string
  nodeId: string
  isTrigger: boolean
  /** The run being looked at (a summary until the whole run is read). */
  run: RunRecord | null
  whole: RunRecord | null
  /** Saves the draft's unsaved edits first: a node runs as the stored draft writes it. */
  beforeTest(): Promise<void>
}

export function NodeRunView(props: NodeRunProps) {
  mountRunStyle()
  const { run, nodeId } = props
  if (!run) return <section class="node-run hint">No run to show yet: run a test.</section>
  const node = run.nodes?.[nodeId]
  return (
    <section class="node-run" data-testid={`run-view:${nodeId}`} aria-label={`${nodeId} in run ${run.id}`}>
      <h3>
        In run <code>{run.id}</code> {run.test ? <span class="badge test-data">test run</span> : null}
      </h3>
      {node ? (
        <NodeResult id={nodeId} node={node} whole={props.whole?.nodes?.[nodeId]} />
      ) : (
        <p class="hint">This node did not run.</p>
      )}
      {props.isTrigger ? null : <RunAgain {...props} />}
    </section>
  )
}

function NodeResult({ id, node, whole }: { id: string; node: NodeState; whole?: NodeState }) {
  if (node.status === 'skipped')
    return (
      <p class="hint" data-testid={`run-skipped:${id}`}>
        <StatusBadge status="skipped" /> Skipped: the branch leading here was not taken.
      </p>
    )
  return (
    <>
      <p>
        <StatusBadge status={node.status} /> {ms(durationOf(node))} {node.branch ? <>branch {node.branch}</> : null}
      </p>
      {node.error ? <p class="error">{node.error}</p> : null}
      {whole ? (
        <>
          <h4>Output</h4>
          <JsonTree value={whole.result} testid={`run-output:${id}`} label={`output of ${id}`} />
          <h4>Input</h4>
          <JsonTree value={whole.input} testid={`run-input:${id}`} label={`input of ${id}`} />
        </>
      ) : (
        <p class="hint">Loading the output…</p>
      )}
    </>
  )
}

function RunAgain({ workflowId, nodeId, run, beforeTest }: NodeRunProps) {
  const [outcome, setOutcome] = useState<NodeOutcome | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => setOutcome(null), [nodeId, run?.id])
  const again = async () => {
    if (!run) return
    setBusy(true)
    setError(null)
    try {
      await beforeTest()
      setOutcome(await testNode(workflowId, nodeId, run.id))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="run-again">
      <button type="button" data-testid="run-node" onClick={again} disabled={busy || !run}>
        {busy ? 'Running…' : 'Run this node again'}
      </button>
      <span class="hint"> with this run's inputs; the run stays as it is</span>
      <ErrorBox error={error} />
      {outcome ? (
        <div class="node-test" data-testid={`node-test:${nodeId}`} data-status={outcome.status}>
          <p>
            Again: <StatusBadge status={outcome.status} /> {ms(outcome.durationMs)}
            {outcome.branch ? <> branch {outcome.branch}</> : null}
          </p>
          {outcome.error ? <p class="error">{outcome.error}</p> : null}
          <JsonTree value={outcome.result} testid={`node-test-output:${nodeId}`} label={`output of ${nodeId} again`} />
        </div>
      ) : null}
    </div>
  )
}
