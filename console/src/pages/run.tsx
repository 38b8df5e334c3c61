/**
 * A run: its graph coloured by node status and a timeline of node executions, both following
 * the run stream live; each node's input, result and error as the API masks them; cancel,
 * retry, and resume of waiting nodes.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, follow } from '../api.ts'
import { Graph } from '../graph.tsx'
import { navigate } from '../router.ts'
import { ErrorBox, Page, StatusBadge, confirmed, useAction, when } from '../ui.tsx'

const FINISHED = new Set(['success', 'partial', 'failure', 'cancelled'])

export function RunPage({ id }: { id: string }) {
  const [run, setRun] = useState<any>(null)
  // The state is called `run`, so the action's runner is `perform` here.
  const { error, setError, run: perform } = useAction()
  const [selected, setSelected] = useState<string | null>(null)
  const loading = useRef<Promise<void> | null>(null)
  const again = useRef(false)

  // One read at a time; events arriving meanwhile ask for one more read after it.
  const current = useRef(id)
  current.current = id
  const refresh = () => {
    if (loading.current) {
      again.current = true
      return
    }
    const asked = id
    // An answer for a run the page no longer shows is dropped.
    loading.current = api('GET', `/v1/runs/${asked}`)
      .then((r) => {
        if (current.current === asked) setRun(r)
      }, setError)
      .finally(() => {
        loading.current = null
        if (again.current) {
          again.current = false
          refresh()
        }
      })
  }
  useEffect(() => {
    setRun(null)
    refresh()
    // The stream ends after the run's last event; it is opened again only if the run goes on.
    return follow(
      `/v1/runs/${id}/stream`,
      () => refresh(),
      async () => {
        const latest = await api('GET', `/v1/runs/${id}`)
        setRun(latest)
        return !FINISHED.has(latest.status)
      },
    )
  }, [id])

  const act = async (method: string, path: string, ask?: string, body: unknown = {}) => {
    if (ask && !confirmed(ask)) return
    await perform(async () => {
      const answer = await api(method, path, method === 'POST' ? body : undefined)
      if (answer?.runId && answer.runId !== id) navigate(`/runs/${answer.runId}`)
      else refresh()
    })
  }

  if (!run)
    return (
      <Page title="Run">
        <ErrorBox error={error} />
        {error ? null : <p>Loading…</p>}
      </Page>
    )
  const nodes: Record<string, any> = run.nodes ?? {}
  const timeline = Object.entries(nodes)
    .filter(([, n]) => n.startedAt)
    .sort((a, b) => Date.parse(a[1].startedAt) - Date.parse(b[1].startedAt))
  const t0 = Date.parse(run.startedAt)
  const t1 = Math.max(
    t0 + 1,
    run.finishedAt ? Date.parse(run.finishedAt) : Date.now(),
    ...timeline.map(([, n]) => Date.parse(n.finishedAt ?? n.startedAt)),
  )
  const waiting = Object.entries(nodes).filter(([, n]) => n.status === 'waiting')
  return (
    <Page
      title={
        <>
          Run <code>{run.id}</code> <StatusBadge status={run.status} />
        </>
      }
      actions={
        <>
          {!FINISHED.has(run.status) ? (
            <button class="danger" onClick={() => act('POST', `/v1/runs/${id}/cancel`, 'Cancel this run?')}>
              Cancel
            </button>
          ) : null}
          {run.status === 'failure' || run.status === 'cancelled' ? (
            <button onClick={() => act('POST', `/v1/runs/${id}/retry`)}>Retry</button>
          ) : null}
          <a class="button" href={`/workflows/${run.workflowId}`}>
            Workflow
          </a>
        </>
      }
    >
      <ErrorBox error={error} />
      <dl class="facts">
        <dt>Workflow</dt>
        <dd>
          <a href={`/workflows/${run.workflowId}`}>{run.workflowId}</a> v{run.workflowVersion}
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
      {run.definition ? (
        <div
          class="graph-box"
          onClick={(e) => setSelected((e.target as Element).closest('[data-node]')?.getAttribute('data-node') ?? null)}
        >
          <Graph definition={run.definition} states={nodes} />
        </div>
      ) : null}
      {waiting.map(([nodeId, n]) => (
        <div class="card waiting" data-node={nodeId}>
          <span>
            Node <code>{nodeId}</code> is waiting{n.type === 'approval' ? ' for an approval' : ''}.
          </span>{' '}
          {n.type === 'approval' ? (
            <>
              <button
                onClick={() =>
                  act('POST', `/v1/runs/${id}/nodes/${encodeURIComponent(nodeId)}/resume`, undefined, {
                    data: { approved: true },
                  })
                }
              >
                Approve
              </button>{' '}
              <button
                class="danger"
                onClick={() =>
                  act(
                    'POST',
                    `/v1/runs/${id}/nodes/${encodeURIComponent(nodeId)}/resume`,
                    'Reject? The run goes on as rejected.',
                    { data: { approved: false } },
                  )
                }
              >
                Reject
              </button>
            </>
          ) : (
            <button onClick={() => act('POST', `/v1/runs/${id}/nodes/${encodeURIComponent(nodeId)}/resume`)}>
              Resume
            </button>
          )}
        </div>
      ))}
      <h2>Timeline</h2>
      <ol class="timeline">
        {timeline.map(([nodeId, n]) => {
          const start = Date.parse(n.startedAt) - t0
          const end = Date.parse(n.finishedAt ?? new Date().toISOString()) - t0
          return (
            <li data-node={nodeId} data-status={n.status} onClick={() => setSelected(nodeId)}>
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
              <span class="t-time">{Math.max(0, end - start)} ms</span>
            </li>
          )
        })}
      </ol>
      {selected && nodes[selected] ? <NodeDetails id={selected} node={nodes[selected]} /> : null}
    </Page>
  )
}

function NodeDetails({ id, node }: { id: string; node: any }) {
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
