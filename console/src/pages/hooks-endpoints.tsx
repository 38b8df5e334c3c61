/** The endpoints of execution hooks: the form that adds one, the secret shown once, and their table. */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { ErrorBox, StatusBadge, useAction } from '../ui.tsx'

/** Performs one action on an endpoint or a delivery: a method, a path, and a question to confirm first. */
export type HookAct = (method: string, path: string, ask?: string) => Promise<void>

/** A new signing secret, shown until the operator says it is copied. */
export function SigningSecret({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  return (
    <div class="card shown-once" role="status">
      <p>The signing secret: copy it now, it is not shown again.</p>
      <pre class="raw-key">{secret}</pre>
      <button type="button" onClick={onDismiss}>
        I have copied it
      </button>
    </div>
  )
}

export function NewEndpoint({ onCreated }: { onCreated: (secret: string) => void }) {
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

/** The endpoints, each with its status, events and retries; enable or disable, a new secret, delete. */
export function EndpointsTable({ endpoints, act }: { endpoints: any[]; act: HookAct }) {
  if (endpoints.length === 0)
    return (
      <p class="empty">
        No endpoints yet. Add one with its URL: runs then send it their events, signed with the secret shown once.
      </p>
    )
  return (
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
        {endpoints.map((e) => (
          <EndpointRow endpoint={e} act={act} />
        ))}
      </tbody>
    </table>
  )
}

function EndpointRow({ endpoint: e, act }: { endpoint: any; act: HookAct }) {
  return (
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
          <button type="button" onClick={() => act('POST', `/v1/execution-webhooks/${e.id}/disable`)}>
            Disable
          </button>
        ) : (
          <button type="button" onClick={() => act('POST', `/v1/execution-webhooks/${e.id}/enable`)}>
            Enable
          </button>
        )}
        <button
          type="button"
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
          type="button"
          class="danger"
          onClick={() => act('DELETE', `/v1/execution-webhooks/${e.id}`, `Delete the endpoint "${e.name}"?`)}
        >
          Delete
        </button>
      </td>
    </tr>
  )
}
