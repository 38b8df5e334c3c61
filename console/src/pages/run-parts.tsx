/** The parts of a run's page: its facts, its waiting nodes, its timeline and one node's details. */
import { StatusBadge, when } from '../ui.tsx'

/** Performs one action on the run: a method, a path, a question to confirm first, a body. */
export type Act = (method: string, path: string, ask?: string, body?: unknown) => Promise<void>

/** The run's workflow, trigger, start, finish and error. */
export function RunFacts({ run }: { run: any }) {
  return (
    <dl class="facts">
      <dt>Workflow</dt>
      <dd>
        <a href={`/workflows/${run.workflowId}`}>{run.workflowName || run.workflowId}</a> v{run.workflowVersion}
      </dd>
      <dt>Triggered by</dt>
      <dd>
        {run.triggeredBy} ({run.triggerType})
      </dd>
      <dt>Started</dt>
      <dd>{when(run.startedAt)}</dd>
      <dt>Finished</dt>
      <dd>{when(run.finishedAt)}</dd>
      {run.error ? (
        <>
          <dt>Error</dt>
          <dd class="error-text">{run.error.message}</dd>
        </>
      ) : null}
    </dl>
  )
}

/** A node that waits: approve or reject an approval, resume any other. */
export function WaitingNode({ runId, nodeId, node, act }: { runId: string; nodeId: string; node: any; act: Act }) {
  const resume = `/v1/runs/${runId}/nodes/${encodeURIComponent(nodeId)}/resume`
  return (
    <div class="card waiting" data-node={nodeId}>
      <span>
        Node <code>{nodeId}</code> is waiting{node.type === 'approval' ? ' for an approval' : ''}.
      </span>{' '}
      {node.type === 'approval' ? (
        <>
          <button type="button" onClick={() => act('POST', resume, undefined, { data: { approved: true } })}>
            Approve
          </button>{' '}
          <button
            type="button"
            class="danger"
            onClick={() => act('POST', resume, 'Reject? The run goes on as rejected.', { data: { approved: false } })}
          >
            Reject
          </button>
        </>
      ) : (
        <button type="button" onClick={() => act('POST', resume)}>
          Resume
        </button>
      )}
    </div>
  )
}

/** The node executions that started, in order, as bars on the run's span of time. */
export function Timeline({
  run,
  nodes,
  onSelect,
}: {
  run: any
  nodes: Record<string, any>
  onSelect: (id: string) => void
}) {
  const timeline = Object.entries(nodes)
    .filter(([, n]) => n.startedAt)
    .sort((a, b) => Date.parse(a[1].startedAt) - Date.parse(b[1].startedAt))
  const t0 = Date.parse(run.startedAt)
  const t1 = Math.max(
    t0 + 1,
    run.finishedAt ? Date.parse(run.finishedAt) : Date.now(),
    ...timeline.map(([, n]) => Date.parse(n.finishedAt || n.startedAt)),
  )
  return (
    <ol class="timeline">
      {timeline.map(([nodeId, n]) => {
        const start = Date.parse(n.startedAt) - t0
        const end = Date.parse(n.finishedAt || new Date().toISOString()) - t0
        return (
          <li data-node={nodeId} data-status={n.status}>
            <button type="button" class="t-row" onClick={() => onSelect(nodeId)}>
              <span class="t-name">{nodeId}</span>
              <span class="t-track">
                <span
                  class={`t-bar status-${n.status}`}
                  style={{
                    left: `${(start / (t1 - t0)) * 100}%`,
                    width: `${Math.max(0.5, ((end - start) / (t1 - t0)) * 100)}%`,
                  }}
                />
              </span>
              <span class="t-time">{n.status === 'skipped' ? 'skipped' : `${Math.max(0, end - start)} ms`}</span>
            </button>
          </li>
        )
      })}
    </ol>
  )
}

export function NodeDetails({ id, node }: { id: string; node: any }) {
  return (
    <div class="card node-details">
      <h3>
        <code>{id}</code> ({node.type}) <StatusBadge status={node.status} />
      </h3>
      <p>
        Attempts: {node.attempts}
        {node.branch ? `, branch ${node.branch}` : ''}
      </p>
      {node.error ? (
        <>
          <h4>Error</h4>
          <pre class="error-text">{node.error}</pre>
        </>
      ) : null}
      <h4>Input</h4>
      <pre>{JSON.stringify(node.input ?? null, null, 2)}</pre>
      <h4>Result</h4>
      <pre>{JSON.stringify(node.result ?? null, null, 2)}</pre>
    </div>
  )
}
