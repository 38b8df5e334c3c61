/**
 * A run: its graph coloured by node status and a timeline of node executions, both following
 * the run stream live; each node's input, result and error as the API masks them; cancel,
 * retry, and resume of waiting nodes.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, follow } from '../api.ts'
import { Graph } from '../graph.tsx'
import { navigate } from '../router.ts'
import { ErrorBox, Page, StatusBadge, confirmed, useAction } from '../ui.tsx'
import { type Act, NodeDetails, RunFacts, Timeline, WaitingNode } from './run-parts.tsx'

const FINISHED = new Set(['success', 'partial', 'failure', 'cancelled'])

/**
 * The run, read again whenever its stream reports an event: one read at a time; events arriving
 * meanwhile ask for one more read after it.
 */
function useRun(id: string, setError: (error: unknown) => void) {
  const [run, setRun] = useState<any>(null)
  const loading = useRef<Promise<void> | null>(null)
  const again = useRef(false)
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
  const [following, setFollowing] = useState(true)
  useEffect(() => {
    setRun(null)
    setFollowing(true)
    refresh()
    // The stream ends after the run's last event; it is opened again only if the run goes on.
    return follow(
      `/v1/runs/${id}/stream`,
      () => refresh(),
      async () => {
        const latest = await api('GET', `/v1/runs/${id}`)
        setRun(latest)
        const goesOn = !FINISHED.has(latest.status)
        if (!goesOn && current.current === id) setFollowing(false)
        return goesOn
      },
    )
  }, [id])
  return { run, refresh, following }
}

export function RunPage({ id }: { id: string }) {
  // The state is called `run`, so the action's runner is `perform` here.
  const { error, setError, run: perform } = useAction()
  const { run, refresh, following } = useRun(id, setError)
  const [selected, setSelected] = useState<string | null>(null)

  const act: Act = async (method, path, ask, body = {}) => {
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
  const waiting = Object.entries(nodes).filter(([, n]) => n.status === 'waiting')
  const skipped = Object.keys(nodes).filter((nodeId) => nodes[nodeId].status === 'skipped')
  return (
    <Page
      title={
        <>
          Run <code>{run.id}</code> <StatusBadge status={run.status} />
        </>
      }
      actions={<RunActions id={id} run={run} act={act} />}
    >
      <ErrorBox error={error} />
      {/* Whether the page still follows the run's stream: it stops once the run has ended. */}
      <span hidden data-testid="run-stream" data-state={following ? 'open' : 'ended'} />
      <RunFacts run={run} />
      {run.definition ? (
        <div
          class="graph-box"
          onClick={(e) => setSelected((e.target as Element).closest('[data-node]')?.getAttribute('data-node') ?? null)}
        >
          <Graph definition={run.definition} states={nodes} />
        </div>
      ) : null}
      {skipped.length ? (
        <p class="hint" data-testid="skipped">
          Skipped, not run: {skipped.join(', ')}
        </p>
      ) : null}
      {waiting.map(([nodeId, n]) => (
        <WaitingNode runId={id} nodeId={nodeId} node={n} act={act} />
      ))}
      <h2>Timeline</h2>
      <Timeline run={run} nodes={nodes} onSelect={setSelected} />
      {selected && nodes[selected] ? <NodeDetails id={selected} node={nodes[selected]} /> : null}
    </Page>
  )
}

/** Cancel while the run goes on, retry once it failed or was cancelled, and its workflow. */
function RunActions({ id, run, act }: { id: string; run: any; act: Act }) {
  return (
    <>
      {!FINISHED.has(run.status) ? (
        <button type="button" class="danger" onClick={() => act('POST', `/v1/runs/${id}/cancel`, 'Cancel this run?')}>
          Cancel
        </button>
      ) : null}
      {run.status === 'failure' || run.status === 'cancelled' ? (
        <button type="button" onClick={() => act('POST', `/v1/runs/${id}/retry`)}>
          Retry
        </button>
      ) : null}
      <a class="button" href={`/workflows/${run.workflowId}`}>
        Workflow
      </a>
    </>
  )
}
