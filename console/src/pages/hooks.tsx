/**
 * Execution hooks: the endpoints (the signing secret shown once), their deliveries with status,
 * response code and latency, retry and replay; and the integration events received, with replay.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { location, setFilter } from '../router.ts'
import { ErrorBox, Page, StatusBadge, confirmed, useAction, useLoad, when } from '../ui.tsx'

const DELIVERY_STATUSES = ['', 'pending', 'retrying', 'success', 'failure']

export function Hooks() {
  const query = location.value.query
  const endpointId = query.get('endpointId') ?? ''
  const status = query.get('status') ?? ''
  const endpoints = useLoad(() => api<{ items: any[] }>('GET', '/v1/execution-webhooks?limit=100'), [])
  const deliveries = useLoad(() => {
    const q = new URLSearchParams({ limit: '50' })
    if (endpointId) q.set('endpointId', endpointId)
    if (status) q.set('status', status)
    return api<{ items: any[] }>('GET', `/v1/execution-webhooks/deliveries?${q}`)
  }, [endpointId, status])
  const [secret, setSecret] = useState<string | null>(null)
  const { error, run } = useAction()
  const set = (key: string, value: string) => setFilter(key, value)
  const act = async (method: string, path: string, ask?: string) => {
    if (ask && !confirmed(ask)) return
    await run(async () => {
      const answer = await api(method, path, method === 'POST' ? {} : undefined)
      if (answer?.signingSecret) setSecret(answer.signingSecret)
      endpoints.reload()
      deliveries.reload()
    })
  }
  return (
    <Page title="Execution hooks">
      {secret ? (
        <div class="card shown-once" role="status">
          <p>The signing secret: copy it now, it is not shown again.</p>
          <pre class="raw-key">{secret}</pre>
          <button onClick={() => setSecret(null)}>I have copied it</button>
        </div>
      ) : null}
      <NewEndpoint
        onCreated={(s) => {
          setSecret(s)
          endpoints.reload()
        }}
      />
      <ErrorBox error={error ?? endpoints.error} />
      <table class="list">
        <thead>
          <tr>
            <th>Endpoint</th>
            <th>URL</th>
            <th>Status</th>
            <th>Events</th>
            <th>Retries</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(endpoints.data?.items ?? []).map((e) => (
            <tr data-endpoint={e.id}>
              <td>
                <a href={`/hooks?endpointId=${e.id}`}>{e.name}</a>
              </td>
              <td>
                <code>{e.url}</code>
              </td>
              <td>
                <StatusBadge status={e.status} />
                {e.disabledReason ? <span class="hint"> {e.disabledReason}</span> : null}
              </td>
              <td>{e.subscribedEventTypes.length ? e.subscribedEventTypes.join(', ') : 'all'}</td>
              <td>{e.maxRetries}</td>
              <td class="actions">
                {e.status === 'enabled' ? (
                  <button onClick={() => act('POST', `/v1/execution-webhooks/${e.id}/disable`)}>Disable</button>
                ) : (
                  <button onClick={() => act('POST', `/v1/execution-webhooks/${e.id}/enable`)}>Enable</button>
                )}
                <button
                  onClick={() =>
                    act(
                      'POST',
                      `/v1/execution-webhooks/${e.id}/regenerate-secret`,
                      'Make a new signing secret? The old one keeps signing for a day.',
                    )
                  }
                >
                  New secret
                </button>
                <button
                  class="danger"
                  onClick={() => act('DELETE', `/v1/execution-webhooks/${e.id}`, `Delete the endpoint "${e.name}"?`)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Deliveries</h2>
      <div class="filters">
        <select
          aria-label="endpoint"
          value={endpointId}
          onChange={(e) => set('endpointId', (e.target as HTMLSelectElement).value)}
        >
          <option value="">every endpoint</option>
          {(endpoints.data?.items ?? []).map((e) => (
            <option value={e.id}>{e.name}</option>
          ))}
        </select>
        <select
          aria-label="delivery status"
          value={status}
          onChange={(e) => set('status', (e.target as HTMLSelectElement).value)}
        >
          {DELIVERY_STATUSES.map((s) => (
            <option value={s}>{s || 'any status'}</option>
          ))}
        </select>
        <button onClick={deliveries.reload}>Refresh</button>
      </div>
      <ErrorBox error={deliveries.error} />
      <table class="list deliveries">
        <thead>
          <tr>
            <th>Event</th>
            <th>Run</th>
            <th>Status</th>
            <th>Response</th>
            <th>Latency</th>
            <th>Attempts</th>
            <th>At</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(deliveries.data?.items ?? []).map((d) => (
            <tr data-delivery={d.id}>
              <td>{d.eventType}</td>
              <td>{d.runId ? <a href={`/runs/${d.runId}`}>{d.runId}</a> : '—'}</td>
              <td>
                <StatusBadge status={d.status} />
              </td>
              <td>{d.responseStatus ?? (d.errorMessage ? <span class="error-text">{d.errorMessage}</span> : '—')}</td>
              <td>{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
              <td>{d.retryCount + (d.attempts?.length ? 1 : 0)}</td>
              <td>{when(d.deliveredAt ?? d.updatedAt)}</td>
              <td class="actions">
                {d.status === 'failure' ? (
                  <button onClick={() => act('POST', `/v1/execution-webhooks/deliveries/${d.id}/retry`)}>Retry</button>
                ) : null}
                <button onClick={() => act('POST', `/v1/execution-webhooks/deliveries/${d.id}/replay`)}>Replay</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deliveries.data && deliveries.data.items.length === 0 ? <p class="empty">No deliveries match.</p> : null}
    </Page>
  )
}

function NewEndpoint({ onCreated }: { onCreated: (secret: string) => void }) {
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const { error, run } = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    await run(async () => {
      const created = await api('POST', '/v1/execution-webhooks', { name, url })
      setName('')
      setUrl('')
      onCreated(created.signingSecret)
    })
  }
  return (
    <form class="card inline" onSubmit={submit}>
      <label>
        Name{' '}
        <input name="hook-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        URL{' '}
        <input
          name="hook-url"
          required
          size={40}
          placeholder="https://…"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Add endpoint</button>
      <ErrorBox error={error} />
    </form>
  )
}

export function Events() {
  const list = useLoad(() => api<{ items: any[] }>('GET', '/v1/webhook-events?limit=50'), [])
  const { error, run } = useAction()
  const replay = async (id: string) => {
    if (!confirmed('Replay this event? It is routed again and may start workflows.')) return
    await run(async () => {
      await api('POST', `/v1/webhook-events/${id}/replay`, {})
      list.reload()
    })
  }
  return (
    <Page title="Integration events" actions={<button onClick={list.reload}>Refresh</button>}>
      <ErrorBox error={error ?? list.error} />
      <table class="list">
        <thead>
          <tr>
            <th>Received</th>
            <th>Source</th>
            <th>Trigger</th>
            <th>Action</th>
            <th>Runs</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data?.items ?? []).map((e) => (
            <tr data-event={e.id}>
              <td>{when(e.receivedAt)}</td>
              <td>{e.source}</td>
              <td>{e.triggerType}</td>
              <td>
                {e.action}
                {e.reason ? <span class="hint"> ({e.reason})</span> : null}
              </td>
              <td>
                {e.runIds.map((id: string) => (
                  <a href={`/runs/${id}`}>{id} </a>
                ))}
              </td>
              <td>
                <button onClick={() => replay(e.id)}>Replay</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.items.length === 0 ? <p class="empty">No integration events received yet.</p> : null}
    </Page>
  )
}
