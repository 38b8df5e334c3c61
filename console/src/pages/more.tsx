/**
 * The smaller pages: your settings (interests), the template moderation queue of the operator
 * organization, and agent runs. The x402 page is in x402.tsx.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { navigate } from '../router.ts'
import { ErrorBox, Page, useAction, useLoad, when } from '../ui.tsx'

export function Settings() {
  const settings = useLoad(() => api<{ enabled: boolean }>('GET', '/v1/user/interests/settings'), [])
  const mine = useLoad(() => api<{ tags: string[] }>('GET', '/v1/user/interests'), [])
  const tags = useLoad(() => api<{ items: Array<{ slug: string; name: string }> }>('GET', '/v1/tags?limit=100'), [])
  const { error, run } = useAction()
  const toggle = (enabled: boolean) =>
    run(async () => {
      await api('PUT', '/v1/user/interests/settings', { enabled })
      settings.reload()
    })
  const choose = async (slug: string, on: boolean) => {
    const current = new Set(mine.data?.tags ?? [])
    if (on) current.add(slug)
    else current.delete(slug)
    await run(async () => {
      await api('PUT', '/v1/user/interests', { tags: [...current] })
      mine.reload()
    })
  }
  return (
    <Page title="Your settings">
      <ErrorBox error={error ?? settings.error} />
      <div class="card">
        <label class="switch">
          <input
            type="checkbox"
            name="interests"
            checked={settings.data?.enabled === true}
            onChange={(e) => toggle((e.target as HTMLInputElement).checked)}
          />
          Use my interests to order templates and tags
        </label>
        <p class="hint">When on, templates carrying the tags you pick come first in the gallery.</p>
        <div class="chips">
          {(tags.data?.items ?? []).map((t) => {
            const on = mine.data?.tags.includes(t.slug) ?? false
            return (
              <button
                type="button"
                class={`chip${on ? ' on' : ''}`}
                data-tag={t.slug}
                aria-pressed={on}
                onClick={() => choose(t.slug, !on)}
              >
                {t.name || t.slug}
              </button>
            )
          })}
        </div>
      </div>
    </Page>
  )
}

export function Moderation() {
  const queue = useLoad(
    () => api<{ items: any[] }>('GET', '/v1/templates?moderationStatus=pending&visibility=public&limit=100'),
    [],
  )
  const { error, run } = useAction()
  const decide = (t: any, approve: boolean) =>
    run(async () => {
      if (approve) await api('POST', `/v1/templates/${t.id}/approve`, {})
      else {
        const reason = window.prompt(`Why is "${t.name}" rejected? The author sees this.`)
        if (!reason) return
        await api('POST', `/v1/templates/${t.id}/reject`, { rejectionReason: reason })
      }
      queue.reload()
    })
  return (
    <Page title="Moderation">
      <ErrorBox error={error ?? queue.error} />
      <table class="list">
        <thead>
          <tr>
            <th>Template</th>
            <th>Organization</th>
            <th>Submitted</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(queue.data?.items ?? []).map((t) => (
            <tr data-template={t.id}>
              <td>
                <a href={`/templates/${t.id}`}>{t.name}</a>
                <p class="hint">{t.description}</p>
              </td>
              <td>{t.organizationName}</td>
              <td>{when(t.submittedAt)}</td>
              <td class="actions">
                <button type="button" onClick={() => decide(t, true)}>
                  Approve
                </button>
                <button type="button" class="danger" onClick={() => decide(t, false)}>
                  Reject…
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {queue.data && queue.data.items.length === 0 ? <p class="empty">Nothing waits for review.</p> : null}
    </Page>
  )
}

export function Agents() {
  const agents = useLoad(() => api<any[]>('GET', '/v1/agent-runs/agents'), [])
  const [agentType, setAgentType] = useState('')
  const [prompt, setPrompt] = useState('')
  const { error, run } = useAction()
  const start = async (event: Event) => {
    event.preventDefault()
    await run(async () => {
      const started = await api('POST', '/v1/agent-runs', {
        agentType: agentType || agents.data?.[0]?.agentType,
        prompt,
      })
      navigate(`/runs/${started.runId}`)
    })
  }
  return (
    <Page title="Agents">
      <ErrorBox error={agents.error} />
      <div class="gallery">
        {(agents.data ?? []).map((a) => (
          <article class="card" data-agent={a.agentType}>
            <h3>{a.name}</h3>
            <p>{a.description}</p>
            <p class="hint">
              Tools: {a.tools.join(', ') || 'none'} · at most {a.maxSteps} steps
            </p>
          </article>
        ))}
      </div>
      <form class="card" onSubmit={start}>
        <label>
          Agent{' '}
          <select name="agent" value={agentType} onChange={(e) => setAgentType((e.target as HTMLSelectElement).value)}>
            {(agents.data ?? []).map((a) => (
              <option value={a.agentType}>{a.name}</option>
            ))}
          </select>
        </label>
        <label>
          What should it do?
          <textarea
            name="prompt"
            rows={4}
            required
            value={prompt}
            onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <ErrorBox error={error} />
        <button type="submit">Start an agent run</button>
      </form>
      <p class="hint">
        An agent run is a run like any other: its page shows each model step and tool call as it happens.
      </p>
    </Page>
  )
}
