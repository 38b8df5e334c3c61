/** The deliveries of execution hooks: their filters, and their table with retry and replay. */
import { StatusBadge, when } from '../ui.tsx'
import type { HookAct } from './hooks-endpoints.tsx'

const DELIVERY_STATUSES = ['', 'pending', 'retrying', 'success', 'failure']

/** Which endpoint and which status the deliveries are of, and a refresh. */
export function DeliveryFilters({
  endpoints,
  endpointId,
  status,
  set,
  onRefresh,
}: {
  endpoints: any[]
  endpointId: string
  status: string
  set: (key: string, value: string) => void
  onRefresh: () => void
}) {
  return (
    <div class="filters">
      <select
        aria-label="endpoint"
        value={endpointId}
        onChange={(e) => set('endpointId', (e.target as HTMLSelectElement).value)}
      >
        <option value="">every endpoint</option>
        {endpoints.map((e) => (
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
      <button type="button" onClick={onRefresh}>
        Refresh
      </button>
    </div>
  )
}

/** The deliveries: event, run, status, response, latency, attempts and time; retry a failed one, replay any. */
export function DeliveriesTable({ deliveries, act }: { deliveries: any[]; act: HookAct }) {
  return (
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
        {deliveries.map((d) => (
          <DeliveryRow delivery={d} act={act} />
        ))}
      </tbody>
    </table>
  )
}

function DeliveryRow({ delivery: d, act }: { delivery: any; act: HookAct }) {
  return (
    <tr data-delivery={d.id}>
      <td>{d.eventType}</td>
      <td>{d.runId ? <a href={`/runs/${d.runId}`}>{d.runId}</a> : '—'}</td>
      <td>
        <StatusBadge status={d.status} />
      </td>
      <td>{d.responseStatus ?? (d.errorMessage ? <span class="error-text">{d.errorMessage}</span> : '—')}</td>
      <td>{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
      <td>{d.retryCount + (d.attempts?.length ? 1 : 0)}</td>
      <td>{when(d.deliveredAt || d.updatedAt)}</td>
      <td class="actions">
        {d.status === 'failure' ? (
          <button type="button" onClick={() => act('POST', `/v1/execution-webhooks/deliveries/${d.id}/retry`)}>
            Retry
          </button>
        ) : null}
        <button type="button" onClick={() => act('POST', `/v1/execution-webhooks/deliveries/${d.id}/replay`)}>
          Replay
        </button>
      </td>
    </tr>
  )
}
