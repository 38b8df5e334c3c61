/**
 * The connector of a node whose type needs one: the organization's connectors of that type
 * (`GET /v1/connectors?type=…`), written to the node as `/connector` = `{ id }`, and a link to
 * create one when none fits.
 */
import { api } from '../../api.ts'
import { useLoad } from '../../ui.tsx'
import { problemsOf } from './problems.ts'
import type { Problem } from './problems.ts'

interface Connector {
  id: string
  name: string
  type: string
}

export interface ConnectorPickerProps {
  /** The connector type the node's type needs. */
  type: string
  value: unknown
  problems: readonly Problem[]
  onChange(pointer: string, value: unknown): void
}

export function ConnectorPicker({ type, value, problems, onChange }: ConnectorPickerProps) {
  const { data, error } = useLoad(
    () =>
      api<{ items: Connector[] }>('GET', `/v1/connectors?limit=100&type=${encodeURIComponent(type)}`).then((d) =>
        d.items.filter((c) => c.type === type),
      ),
    [type],
  )
  const chosen = (value as { id?: string } | undefined)?.id ?? ''
  const own = problemsOf({ pointer: '/connector', kind: 'json' }, problems)
  return (
    <div class={`field${own.length ? ' invalid' : ''}`}>
      <label for="node-connector">Connector ({type})</label>
      <select
        id="node-connector"
        data-testid="field:/connector"
        value={chosen}
        onChange={(e) => {
          const id = (e.target as HTMLSelectElement).value
          onChange('/connector', id ? { id } : undefined)
        }}
      >
        <option value="">—</option>
        {chosen && data && !data.some((c) => c.id === chosen) ? <option value={chosen}>{chosen}</option> : null}
        {(data ?? []).map((c) => (
          <option value={c.id}>{c.name}</option>
        ))}
      </select>
      {data && data.length === 0 ? <p class="hint">No {type} connector yet.</p> : null}
      <a href={`/connectors?type=${encodeURIComponent(type)}`} target="_blank" rel="noopener">
        create a {type} connector
      </a>
      {error ? <p class="field-error">{(error as Error).message}</p> : null}
      {own.map((p) => (
        <p class="field-error" role="alert">
          {p.message}
        </p>
      ))}
    </div>
  )
}
