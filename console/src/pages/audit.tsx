/** The audit log of the organization: who did what, filtered, newest first (owners: audit:read). */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { ErrorBox, Page, useLoad, when } from '../ui.tsx'

const PAGE = 50

export function Audit() {
  const [operation, setOperation] = useState('')
  const [actorId, setActorId] = useState('')
  const [offset, setOffset] = useState(0)
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) })
  if (operation) query.set('operation', operation)
  if (actorId) query.set('actorId', actorId)
  const list = useLoad(
    () => api<{ items: any[]; hasMore: boolean }>('GET', `/v1/audit-events?${query}`),
    [operation, actorId, offset],
  )
  const filter = (set: (value: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value.trim())
    setOffset(0)
  }
  return (
    <Page title="Audit log">
      <form class="card inline" onSubmit={(e) => e.preventDefault()}>
        <label>
          Operation <input name="operation" value={operation} onChange={filter(setOperation)} />
        </label>
        <label>
          Actor id <input name="actorId" value={actorId} onChange={filter(setActorId)} />
        </label>
      </form>
      {list.error ? <ErrorBox error={list.error} /> : null}
      <table class="list">
        <thead>
          <tr>
            <th>When</th>
            <th>Who</th>
            <th>Operation</th>
            <th>Resource</th>
            <th>Outcome</th>
            <th>From</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.items ?? []).map((e) => (
            <tr key={e.id}>
              <td>{when(e.at)}</td>
              <td title={e.actor.id}>{e.actor.name || e.actor.id}</td>
              <td>{e.operation}</td>
              <td>{e.resource.id ? `${e.resource.type} ${e.resource.id}` : e.resource.type}</td>
              <td class={e.outcome === 'allowed' ? '' : 'error'}>{e.outcome}</td>
              <td title={e.userAgent ?? ''}>{e.address ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        {offset > 0 ? (
          <button type="button" onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Newer
          </button>
        ) : null}{' '}
        {list.data?.hasMore ? (
          <button type="button" onClick={() => setOffset(offset + PAGE)}>
            Older
          </button>
        ) : null}
      </p>
    </Page>
  )
}
