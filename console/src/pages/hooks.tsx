/**
 * Execution hooks: the endpoints (the signing secret shown once), their deliveries with status,
 * response code and latency, retry and replay; and the integration events received, with replay.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { location, setFilter } from '../router.ts'
import { ErrorBox, Page, confirmed, useAction, useLoad, when } from '../ui.tsx'
import { DeliveriesTable, DeliveryFilters } from './hooks-deliveries.tsx'
import { EndpointsTable, type HookAct, NewEndpoint, SigningSecret } from './hooks-endpoints.tsx'

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
  const act: HookAct = async (method, path, ask) => {
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
      {secret ? <SigningSecret secret={secret} onDismiss={() => setSecret(null)} /> : null}
      <NewEndpoint
        onCreated={(s) => {
          setSecret(s)
          endpoints.reload()
        }}
      />
      <ErrorBox error={error ?? endpoints.error} />
      <EndpointsTable endpoints={endpoints.data?.items ?? []} act={act} />
      <h2>Deliveries</h2>
      <DeliveryFilters
        endpoints={endpoints.data?.items ?? []}
        endpointId={endpointId}
        status={status}
        set={set}
        onRefresh={deliveries.reload}
      />
      <ErrorBox error={deliveries.error} />
      <DeliveriesTable deliveries={deliveries.data?.items ?? []} act={act} />
      {deliveries.data && deliveries.data.items.length === 0 ? (
        <p class="empty">
          No deliveries match. Add an endpoint above; a delivery shows here once a run sends it an event.
        </p>
      ) : null}
    </Page>
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
    <Page
      title="Integration events"
      actions={
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      }
    >
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
                <button type="button" onClick={() => replay(e.id)}>
                  Replay
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.items.length === 0 ? <p class="empty">No integration events received yet.</p> : null}
    </Page>
  )
}
