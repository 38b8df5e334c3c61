/** Runs, newest first, filtered by status and workflow; the filters live in the URL. */
import { api } from '../api.ts'
import { location, navigate } from '../router.ts'
import { ErrorBox, Page, StatusBadge, useLoad, when } from '../ui.tsx'

const STATUSES = ['', 'running', 'waiting', 'success', 'partial', 'failure', 'cancelled']

export function Runs() {
  const query = location.value.query
  const status = query.get('status') ?? ''
  const workflowId = query.get('workflowId') ?? ''
  const offset = Number(query.get('offset') ?? 0) || 0
  const list = useLoad(() => {
    const q = new URLSearchParams({ limit: '50', offset: String(offset) })
    if (status) q.set('status', status)
    if (workflowId) q.set('workflowId', workflowId)
    return api<{ items: any[]; hasMore: boolean }>('GET', `/v1/runs?${q}`)
  }, [status, workflowId, offset])
  const set = (key: string, value: string) => {
    const q = new URLSearchParams(query)
    if (value) q.set(key, value)
    else q.delete(key)
    if (key !== 'offset') q.delete('offset')
    navigate(`/runs${q.size ? `?${q}` : ''}`)
  }
  return (
    <Page title="Runs" actions={<button onClick={list.reload}>Refresh</button>}>
      <div class="filters">
        <select value={status} onChange={(e) => set('status', (e.target as HTMLSelectElement).value)} aria-label="status">
          {STATUSES.map((s) => <option value={s}>{s || 'any status'}</option>)}
        </select>
        <input placeholder="Workflow id" value={workflowId} onChange={(e) => set('workflowId', (e.target as HTMLInputElement).value.trim())} aria-label="workflow" />
      </div>
      <ErrorBox error={list.error} />
      <table class="list runs">
        <thead><tr><th>Run</th><th>Status</th><th>Workflow</th><th>Triggered by</th><th>Started</th><th>Finished</th></tr></thead>
        <tbody>
          {(list.data?.items ?? []).map((r) => (
            <tr data-run={r.id}>
              <td><a href={`/runs/${r.id}`}>{r.id}</a></td>
              <td><StatusBadge status={r.status} /></td>
              <td><a href={`/workflows/${r.workflowId}`}>{r.workflowId}</a> v{r.workflowVersion}</td>
              <td>{r.triggeredBy}</td>
              <td>{when(r.startedAt)}</td>
              <td>{when(r.finishedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.items.length === 0 ? <p class="empty">No runs match.</p> : null}
      <div class="pager">
        {offset > 0 ? <button onClick={() => set('offset', String(Math.max(0, offset - 50)))}>Newer</button> : null}
        {list.data?.hasMore ? <button onClick={() => set('offset', String(offset + 50))}>Older</button> : null}
      </div>
    </Page>
  )
}
