/**
 * The smaller pages: your settings (interests), the template moderation queue of the operator
 * organization, agent runs, and x402 (paid workflows and the imported endpoints with their spend).
 */
import { TokenAmount } from '../units.tsx'
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { navigate } from '../router.ts'
import { ErrorBox, Page, StatusBadge, confirmed, useAction, useLoad, when } from '../ui.tsx'

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
                <button onClick={() => decide(t, true)}>Approve</button>
                <button class="danger" onClick={() => decide(t, false)}>
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

export function X402() {
  const endpoints = useLoad(() => api<{ items: any[] }>('GET', '/v1/x402-endpoints?limit=100'), [])
  // The workflows whose live version is paid, read a page at a time.
  const paid = useLoad(async () => {
    const found: any[] = []
    for (let offset = 0; offset < 2000; offset += 100) {
      const page = await api<{ items: any[]; hasMore: boolean }>('GET', `/v1/workflows?limit=100&offset=${offset}`)
      found.push(...page.items.filter((w) => w.x402Config && w.hasLiveVersion))
      if (!page.hasMore) break
    }
    return found
  }, [])
  const [url, setUrl] = useState('')
  // The method to probe and pay with ("": GET, then POST), and the JSON body sent with it.
  const [method, setMethod] = useState('')
  const [body, setBody] = useState('')
  const { error, run } = useAction()
  const remove = async (e: any) => {
    if (!confirmed(`Remove the endpoint "${e.name}"?`)) return
    await run(async () => {
      await api('DELETE', `/v1/x402-endpoints/${e.id}`)
      endpoints.reload()
    })
  }
  const [imported, setImported] = useState<string | null>(null)
  const importOne = async (event: Event) => {
    event.preventDefault()
    setImported(null)
    // Asked inside the action: the last error goes away even when the person declines.
    await run(async () => {
      if (
        !confirmed(
          `Import ${url}? This pays for one call from the organization's default wallet (at most what the endpoint asks).`,
        )
      )
        return
      const answer = await api('POST', '/v1/x402-endpoints/import', {
        resourceUrl: url,
        ...(method ? { method } : {}),
        ...(body.trim() ? { body: JSON.parse(body) } : {}),
      })
      setImported(
        `Imported "${answer.endpoint?.name ?? url}"${answer.paymentDetails?.amountPaid ? `, paid ${answer.paymentDetails.amountPaid}` : ''}.`,
      )
      setUrl('')
      endpoints.reload()
    })
  }
  return (
    <Page title="x402">
      <h2>Paid workflows</h2>
      <table class="list">
        <thead>
          <tr>
            <th>Workflow</th>
            <th>Price</th>
            <th>Chain</th>
            <th>Discoverable</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {(paid.data ?? []).map((w) => (
            <tr data-paid={w.id}>
              <td>
                <a href={`/workflows/${w.id}`}>{w.name}</a>
              </td>
              <td title="the token's smallest unit">{w.x402Config.price} (smallest unit)</td>
              <td>{w.x402Config.chainId}</td>
              <td>{w.x402Config.discoverable ? 'yes' : 'no'}</td>
              <td>
                <StatusBadge status={w.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {paid.data && paid.data.length === 0 ? <p class="empty">No workflow is paid.</p> : null}
      <h2>Imported endpoints</h2>
      <form class="card inline" onSubmit={importOne}>
        <label>
          URL{' '}
          <input
            name="import-url"
            size={50}
            required
            placeholder="https://…"
            value={url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Method{' '}
          <select
            name="import-method"
            value={method}
            onChange={(e) => setMethod((e.target as HTMLSelectElement).value)}
          >
            <option value="">GET, then POST</option>
            <option value="GET">GET</option>
            <option value="POST">POST</option>
          </select>
        </label>
        <label>
          Body (JSON){' '}
          <input
            name="import-body"
            size={30}
            placeholder='{"symbol": "ETH"}'
            value={body}
            onInput={(e) => setBody((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Import (pays one call)</button>
      </form>
      {imported ? (
        <p class="notice" role="status">
          {imported}
        </p>
      ) : null}
      <ErrorBox error={error ?? endpoints.error} />
      <table class="list">
        <thead>
          <tr>
            <th>Endpoint</th>
            <th>Price, up to</th>
            <th>Calls</th>
            <th>Failures</th>
            <th>Spent</th>
            <th>Last called</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(endpoints.data?.items ?? []).map((e) => (
            <tr data-x402={e.id}>
              <td>
                {e.name}
                <p class="hint">
                  <code>
                    {e.method} {e.baseUrl}
                  </code>
                </p>
              </td>
              <td>
                <TokenAmount amount={e.price} decimals={e.tokenDecimals} symbol={e.tokenSymbol} /> (
                <TokenAmount amount={e.maxAllowedPrice} decimals={e.tokenDecimals} />)
              </td>
              <td>{e.totalCalls}</td>
              <td>{e.failureCount}</td>
              <td>
                {Object.values(e.spentByToken ?? {}).length ? (
                  Object.entries(e.spentByToken ?? {}).map(([token, spent], i) => (
                    <span key={token}>
                      {i ? ', ' : ''}
                      <TokenAmount amount={spent} decimals={e.tokenDecimals} symbol={e.tokenSymbol} />
                    </span>
                  ))
                ) : (
                  <TokenAmount amount="0" symbol={e.tokenSymbol} />
                )}
              </td>
              <td>{when(e.lastCalledAt)}</td>
              <td>
                <button class="danger" onClick={() => remove(e)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {endpoints.data && endpoints.data.items.length === 0 ? <p class="empty">No endpoint imported yet.</p> : null}
    </Page>
  )
}
