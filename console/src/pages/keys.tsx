/** API keys of the organization: create one (its raw key shown once), revoke. */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { ErrorBox, Page, confirmed, useAction, useLoad, when } from '../ui.tsx'

export function Keys() {
  const list = useLoad(() => api<{ items: any[] }>('GET', '/v1/api-keys?limit=100'), [])
  const accounts = useLoad(
    () => api<{ items: any[] }>('GET', '/v1/service-accounts?limit=100').catch(() => ({ items: [] })),
    [],
  )
  const [name, setName] = useState('')
  const [scope, setScope] = useState('read-write')
  const [account, setAccount] = useState('')
  const [expires, setExpires] = useState('')
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null)
  const { error, run } = useAction()
  const create = async (event: Event) => {
    event.preventDefault()
    await run(async () => {
      const answer = await api('POST', '/v1/api-keys', {
        name,
        scope,
        ...(account ? { serviceAccountId: account } : {}),
        ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
      })
      setCreated({ name: answer.name, key: answer.key })
      setName('')
      list.reload()
    })
  }
  const revoke = async (key: any) => {
    if (!confirmed(`Revoke the key "${key.name}"? Callers using it are refused from now on.`)) return
    await run(async () => {
      await api('DELETE', `/v1/api-keys/${key.id}`)
      list.reload()
    })
  }
  return (
    <Page title="API keys">
      {created ? (
        <div class="card shown-once" role="status">
          <p>
            The key <strong>{created.name}</strong>. Copy it now: it is not shown again.
          </p>
          <pre class="raw-key">{created.key}</pre>
          <button type="button" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      ) : null}
      <form class="card inline" onSubmit={create}>
        <label>
          Name{' '}
          <input
            name="name"
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Scope{' '}
          <select name="scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value)}>
            <option>read-write</option>
            <option>read</option>
          </select>
        </label>
        <label>
          For{' '}
          <select
            name="service-account"
            value={account}
            onChange={(e) => setAccount((e.target as HTMLSelectElement).value)}
          >
            <option value="">you (your role's permissions)</option>
            {(accounts.data?.items ?? [])
              .filter((a) => a.status === 'active')
              .map((a) => (
                <option value={a.id}>service account {a.name}</option>
              ))}
          </select>
        </label>
        <label>
          Expires{' '}
          <input
            name="expires"
            type="datetime-local"
            value={expires}
            onInput={(e) => setExpires((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Create key</button>
      </form>
      <ErrorBox error={error ?? list.error} />
      <table class="list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Scope</th>
            <th>Service account</th>
            <th>Created</th>
            <th>Expires</th>
            <th>Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.items ?? []).map((k) => (
            <tr data-key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.keyPrefix}…</code>
              </td>
              <td>{k.scope}</td>
              <td>
                {k.serviceAccountId
                  ? ((accounts.data?.items ?? []).find((a) => a.id === k.serviceAccountId)?.name ?? k.serviceAccountId)
                  : '—'}
              </td>
              <td>{when(k.createdAt)}</td>
              <td>{when(k.expiresAt)}</td>
              <td>{when(k.lastUsedAt)}</td>
              <td>
                {k.revokedAt ? (
                  'revoked'
                ) : (
                  <button type="button" class="danger" onClick={() => revoke(k)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  )
}
