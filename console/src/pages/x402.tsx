/** x402: the workflows that are paid, and the endpoints imported with what was spent on them. */
import { TokenAmount } from '../units.tsx'
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { SelectField, TextField } from '../fields.tsx'
import { EmptyNote, ListTable } from '../list.tsx'
import { ErrorBox, Notice, Page, StatusBadge, confirmed, useAction, useLoad, when } from '../ui.tsx'

/** The workflows whose live version is paid, read a page at a time. */
async function loadPaidWorkflows(): Promise<any[]> {
  const found: any[] = []
  for (let offset = 0; offset < 2000; offset += 100) {
    const page = await api<{ items: any[]; hasMore: boolean }>('GET', `/v1/workflows?limit=100&offset=${offset}`)
    found.push(...page.items.filter((w) => w.x402Config && w.hasLiveVersion))
    if (!page.hasMore) break
  }
  return found
}

export function X402() {
  const endpoints = useLoad(() => api<{ items: any[] }>('GET', '/v1/x402-endpoints?limit=100'), [])
  const paid = useLoad(loadPaidWorkflows, [])
  return (
    <Page title="x402">
      <PaidWorkflows workflows={paid.data} />
      <ImportedEndpoints items={endpoints.data?.items} loadError={endpoints.error} reload={endpoints.reload} />
    </Page>
  )
}

/** The paid workflows with their price, chain and status. */
function PaidWorkflows({ workflows }: { workflows: any[] | undefined }) {
  return (
    <>
      <h2>Paid workflows</h2>
      <ListTable heads={['Workflow', 'Price', 'Chain', 'Discoverable', 'Status']}>
        {(workflows ?? []).map((w) => (
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
      </ListTable>
      <EmptyNote items={workflows}>No workflow is paid.</EmptyNote>
    </>
  )
}

/** The form to import an endpoint (it pays for one call), and the endpoints imported. */
function ImportedEndpoints({
  items,
  loadError,
  reload,
}: {
  items: any[] | undefined
  loadError: unknown
  reload: () => void
}) {
  const [url, setUrl] = useState('')
  // The method to probe and pay with ("": GET, then POST), and the JSON body sent with it.
  const [method, setMethod] = useState('')
  const [body, setBody] = useState('')
  const { error, run } = useAction()
  const remove = async (e: any) => {
    if (!confirmed(`Remove the endpoint "${e.name}"?`)) return
    await run(async () => {
      await api('DELETE', `/v1/x402-endpoints/${e.id}`)
      reload()
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
      reload()
    })
  }
  return (
    <>
      <h2>Imported endpoints</h2>
      <form class="card inline" onSubmit={importOne}>
        <TextField
          label="URL"
          name="import-url"
          size={50}
          required
          placeholder="https://…"
          value={url}
          onValue={setUrl}
        />
        <SelectField label="Method" name="import-method" value={method} onValue={setMethod}>
          <option value="">GET, then POST</option>
          <option value="GET">GET</option>
          <option value="POST">POST</option>
        </SelectField>
        <TextField
          label="Body (JSON)"
          name="import-body"
          size={30}
          placeholder='{"symbol": "ETH"}'
          value={body}
          onValue={setBody}
        />
        <button type="submit">Import (pays one call)</button>
      </form>
      <Notice text={imported} />
      <ErrorBox error={error ?? loadError} />
      <EndpointsTable items={items ?? []} remove={remove} />
      <EmptyNote items={items}>No endpoint imported yet.</EmptyNote>
    </>
  )
}

/** Each endpoint imported: its price, calls, failures, what was spent on it, and a button to remove it. */
function EndpointsTable({ items, remove }: { items: any[]; remove: (endpoint: any) => void }) {
  return (
    <ListTable heads={['Endpoint', 'Price, up to', 'Calls', 'Failures', 'Spent', 'Last called', '']}>
      {items.map((e) => (
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
            <button type="button" class="danger" onClick={() => remove(e)}>
              Remove
            </button>
          </td>
        </tr>
      ))}
    </ListTable>
  )
}
