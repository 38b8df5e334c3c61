/**
 * A workflow's polling triggers: remembered items, the last and next poll, the last problem, and
 * a reset, as `GET /v1/workflows/{id}/polls` answers them; shown only when the live version has any.
 */
import { api } from '../api.ts'
import { confirmed, ErrorBox, useAction, useLoad, when } from '../ui.tsx'

interface Polled {
  triggerNodeId: string
  type: string
  active: boolean
  primed: boolean
  seenKeys: number
  /** "" until the first poll */
  lastPolledAt: string
  /** "" while it does not poll */
  nextPollAt: string
  lastItems: number
  lastRuns: number
  /** "" after a success */
  lastError: string
  failures: number
}

export function PolledTriggers({ id }: { id: string }) {
  const polls = useLoad(() => api<{ triggers: Polled[] }>('GET', `/v1/workflows/${id}/polls`), [id])
  const { error, run } = useAction()
  const triggers = polls.data?.triggers ?? []
  if (triggers.length === 0) return null
  const reset = (nodeId: string) => async () => {
    if (!confirmed(`Forget what "${nodeId}" has seen? Its next poll records what is there and starts nothing.`)) return
    await run(async () => {
      await api('POST', `/v1/workflows/${id}/polls/${encodeURIComponent(nodeId)}/reset`)
      polls.reload()
    })
  }
  return (
    <section data-testid="polls">
      <h2>Polling triggers</h2>
      <ErrorBox error={error} />
      <table class="list">
        <thead>
          <tr>
            <th>Trigger</th>
            <th>Remembered items</th>
            <th>Last poll</th>
            <th>Next poll</th>
            <th>Problem</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {triggers.map((p) => (
            <tr data-testid={`poll:${p.triggerNodeId}`}>
              <td>
                {p.triggerNodeId} <span class="hint">{p.type}</span>
              </td>
              <td>{p.primed ? p.seenKeys : 'none yet: the first poll records what is there'}</td>
              <td>
                {when(p.lastPolledAt)}
                {p.lastPolledAt ? ` · ${p.lastItems} items, ${p.lastRuns} runs` : ''}
              </td>
              <td>{p.active ? when(p.nextPollAt) : 'not polling (paused or archived)'}</td>
              <td>{p.lastError ? `${p.lastError} (${p.failures} in a row)` : '—'}</td>
              <td>
                <button type="button" data-testid={`poll-reset:${p.triggerNodeId}`} onClick={reset(p.triggerNodeId)}>
                  Reset
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
