/** Runs, newest first, filtered by status and workflow; the filters live in the URL. */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { location, setFilter } from '../router.ts'
import { StatusFilter } from '../fields.tsx'
import { EmptyNote, ListTable } from '../list.tsx'
import { ErrorBox, Notice, Page, StatusBadge, confirmed, useAction, useLoad, when } from '../ui.tsx'

const CANCELLABLE = ['running', 'waiting']
const RETRYABLE = ['failure', 'cancelled']

/** A `datetime-local` value (the browser's time zone) from Unix milliseconds, and back. */
const toLocal = (ms: string) => {
  const d = new Date(Number(ms))
  if (!ms || Number.isNaN(d.getTime())) return ''
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}
/** A time bound from the URL: Unix milliseconds, or nothing when the link holds something else. */
const bound = (value: string | null) => (value && /^\d{1,15}$/.test(value) ? value : '')
const fromLocal = (value: string) => (value ? String(new Date(value).getTime()) : '')

const STATUSES = ['', 'running', 'waiting', 'success', 'partial', 'failure', 'cancelled']

export function Runs() {
  const query = location.value.query
  const status = query.get('status') ?? ''
  const workflowId = query.get('workflowId') ?? ''
  const since = bound(query.get('since'))
  const until = bound(query.get('until'))
  const offset = Number(query.get('offset') ?? 0) || 0
  const filter = () => {
    const q = new URLSearchParams()
    if (workflowId) q.set('workflowId', workflowId)
    if (since) q.set('since', since)
    if (until) q.set('until', until)
    return q
  }
  const list = useLoad(() => {
    const q = filter()
    q.set('limit', '50')
    q.set('offset', String(offset))
    if (status) q.set('status', status)
    return api<{ items: any[]; hasMore: boolean }>('GET', `/v1/runs?${q}`)
  }, [status, workflowId, since, until, offset])
  const { error, run } = useAction()
  const [notice, setNotice] = useState<string | null>(null)
  /** Shows the server's count of the runs a bulk action would take, and acts only on that many once confirmed. */
  const bulk = async (action: 'cancel' | 'retry') => {
    setNotice(null)
    await run(async () => {
      const counts = (await api<{ counts: Record<string, number> }>('GET', `/v1/runs/status-counts?${filter()}`)).counts
      const statuses = status ? [status] : action === 'cancel' ? CANCELLABLE : RETRYABLE
      const n = statuses.reduce((sum, s) => sum + (counts[s] ?? 0), 0)
      if (n === 0) return setNotice(`No ${statuses.join(' or ')} runs match.`)
      const count = Math.min(n, 1000)
      const what = `${count.toLocaleString()} ${statuses.join(' or ')} run${count === 1 ? '' : 's'}${n > count ? ` (the oldest 1,000 of ${n.toLocaleString()})` : ''}`
      if (!confirmed(`${action === 'cancel' ? 'Cancel' : 'Retry'} ${what}?`)) return
      const body = {
        ...Object.fromEntries([...filter()].map(([k, v]) => [k, k === 'workflowId' ? v : Number(v)])),
        ...(status ? { status } : {}),
        expectedCount: count,
      }
      const done = await api('POST', `/v1/runs/bulk-${action}`, body)
      setNotice(
        action === 'cancel' ? `Cancelled ${done.cancelled} of ${count}.` : `Retried ${done.retried} of ${count}.`,
      )
      list.reload()
    })
  }
  const set = (key: string, value: string) => setFilter(key, value)
  return (
    <Page
      title="Runs"
      actions={
        <>
          {!status || CANCELLABLE.includes(status) ? (
            <button type="button" class="danger" onClick={() => bulk('cancel')}>
              Cancel matching…
            </button>
          ) : null}
          {!status || RETRYABLE.includes(status) ? (
            <button type="button" onClick={() => bulk('retry')}>
              Retry matching…
            </button>
          ) : null}
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </>
      }
    >
      <div class="filters">
        <StatusFilter statuses={STATUSES} value={status} onValue={(value) => set('status', value)} />
        <input
          placeholder="Workflow id"
          value={workflowId}
          onChange={(e) => set('workflowId', (e.target as HTMLInputElement).value.trim())}
          aria-label="workflow"
        />
        <TimeBound label="from" ariaLabel="started from" value={since} onValue={(value) => set('since', value)} />
        <TimeBound label="to" ariaLabel="started before" value={until} onValue={(value) => set('until', value)} />
      </div>
      <Notice text={notice} />
      <ErrorBox error={error ?? list.error} />
      <ListTable class="list runs" heads={['Run', 'Status', 'Workflow', 'Triggered by', 'Started', 'Finished']}>
        {(list.data?.items ?? []).map((r) => (
          <tr data-run={r.id}>
            <td>
              <a href={`/runs/${r.id}`}>{r.id}</a>
            </td>
            <td>
              <StatusBadge status={r.status} />
            </td>
            <td>
              <a href={`/workflows/${r.workflowId}`} title={r.workflowId}>
                {r.workflowName || r.workflowId}
              </a>{' '}
              v{r.workflowVersion}
            </td>
            <td>{r.triggeredBy}</td>
            <td>{when(r.startedAt)}</td>
            <td>{when(r.finishedAt)}</td>
          </tr>
        ))}
      </ListTable>
      <EmptyNote items={list.data?.items}>
        No runs match. Clear the filters, or start one with Run now on a workflow's page.
      </EmptyNote>
      <div class="pager">
        {offset > 0 ? (
          <button type="button" onClick={() => set('offset', String(Math.max(0, offset - 50)))}>
            Newer
          </button>
        ) : null}
        {list.data?.hasMore ? (
          <button type="button" onClick={() => set('offset', String(offset + 50))}>
            Older
          </button>
        ) : null}
      </div>
    </Page>
  )
}

/** One end of the time filter: a local date and time on screen, Unix milliseconds to `onValue`. */
function TimeBound({
  label,
  ariaLabel,
  value,
  onValue,
}: {
  label: string
  ariaLabel: string
  value: string
  onValue: (value: string) => void
}) {
  return (
    <label class="inline">
      {label}{' '}
      <input
        type="datetime-local"
        aria-label={ariaLabel}
        value={toLocal(value)}
        onChange={(e) => onValue(fromLocal(e.currentTarget.value))}
      />
    </label>
  )
}
