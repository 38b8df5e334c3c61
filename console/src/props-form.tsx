/**
 * A form generated from a template's templateProps: one field per prop, chosen by type and
 * `properties.inputType` (unknown input types fall back to a text field), `enum` with
 * `enumLabels` as a choice, csvTable as an editable table within its row bounds, and
 * `visibleWhen` hiding a prop until other props hold the given values. Values are checked by the
 * server; its details are shown beside their fields.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.ts'

export interface TemplateProp {
  key: string
  name: string
  description?: string
  type: 'string' | 'number' | 'integer' | 'boolean' | 'object'
  default?: unknown
  required?: boolean
  sensitive?: boolean
  properties?: {
    inputType?: string
    enum?: unknown[]
    enumLabels?: string[]
    minimum?: number
    maximum?: number
    pattern?: string
    placeholder?: string
    columns?: Array<{ key: string; name?: string; type?: string; required?: boolean; enum?: unknown[] }>
    minRows?: number
    maxRows?: number
    visibleWhen?: Record<string, unknown>
    [more: string]: unknown
  }
}

interface Wallet {
  id: string
  name: string
  address: string
  isDefault: boolean
}
interface Connector {
  id: string
  name: string
  type: string
}

/** What the pickers offer: the organization's wallets and connectors (empty when the caller may not read them). */
function usePickerData(props: TemplateProp[]) {
  const [data, setData] = useState<{ wallets: Wallet[]; connectors: Connector[] }>({ wallets: [], connectors: [] })
  useEffect(() => {
    const types = new Set(props.map((p) => p.properties?.inputType))
    const wantWallets =
      [...types].some((t) => t === 'walletConnector' || ADDRESS_TYPES.has(t ?? '')) ||
      props.some((p) => p.properties?.autoFillFromWallet)
    const wantConnectors = types.has('notification-channel')
    void Promise.all([
      wantWallets
        ? api<{ items: Wallet[] }>('GET', '/v1/wallets?limit=100').then(
            (d) => d.items,
            () => [],
          )
        : [],
      wantConnectors
        ? api<{ items: Connector[] }>('GET', '/v1/connectors?limit=100').then(
            (d) => d.items,
            () => [],
          )
        : [],
    ]).then(([wallets, connectors]) => setData({ wallets, connectors }))
  }, [props])
  return data
}

const isTable = (p: TemplateProp) => p.properties?.inputType === 'csvTable' || (p.properties?.columns?.length ?? 0) > 0
const ADDRESS_TYPES = new Set(['address', 'contractAddress', 'recipientAddress'])

/**
 * `visibleWhen` as `{ "<prop key>": value }` (a list of values means any of them); the forms
 * `{ key, value }` and `{ prop, equals }` are read too. Every condition must hold.
 */
export function visible(prop: TemplateProp, values: Record<string, unknown>): boolean {
  const when = prop.properties?.visibleWhen
  if (!when || typeof when !== 'object') return true
  const w = when as Record<string, unknown>
  const conditions: Array<[string, unknown]> =
    typeof w.key === 'string' || typeof w.prop === 'string'
      ? [[(w.key ?? w.prop) as string, w.value ?? w.equals]]
      : Object.entries(w)
  return conditions.every(([key, expected]) =>
    Array.isArray(expected) ? expected.some((e) => e === values[key]) : expected === values[key],
  )
}

function initial(props: TemplateProp[]): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const p of props) {
    if (isTable(p)) {
      const rows = Math.max(1, p.properties?.minRows || 1)
      values[p.key] = Array.from({ length: rows }, () =>
        Object.fromEntries((p.properties?.columns ?? []).map((c) => [c.key, ''])),
      )
    } else if (p.default !== undefined)
      values[p.key] = p.type === 'object' ? JSON.stringify(p.default, null, 2) : p.default
    else if (p.type === 'boolean') values[p.key] = false
  }
  return values
}

/** The value to send: numbers as numbers, objects parsed, table cells typed, empty fields left out. */
function outgoing(props: TemplateProp[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const p of props) {
    if (!visible(p, values)) continue
    const v = values[p.key]
    if (v === undefined || v === '') continue
    if (isTable(p)) {
      const columns = p.properties?.columns ?? []
      out[p.key] = (v as Array<Record<string, string>>).map((row) =>
        Object.fromEntries(columns.map((c) => [c.key, cell(c.type, row[c.key])])),
      )
    } else if (p.type === 'number' || p.type === 'integer')
      out[p.key] = typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v
    else if (p.type === 'object' && typeof v === 'string') {
      try {
        out[p.key] = JSON.parse(v)
      } catch {
        out[p.key] = v
      }
    } else out[p.key] = v
  }
  return out
}

function cell(type: string | undefined, value: string | undefined): unknown {
  if (value === undefined || value === '') return null
  if ((type === 'number' || type === 'integer') && !Number.isNaN(Number(value))) return Number(value)
  if (type === 'boolean') return value === 'true'
  return value
}

export function PropsForm({
  props,
  errors,
  onSubmit,
  submitLabel,
}: {
  props: TemplateProp[]
  errors: Record<string, string>
  onSubmit: (values: Record<string, unknown>) => Promise<void> | void
  submitLabel: string
}) {
  const [values, setValues] = useState(() => initial(props))
  const set = (key: string, value: unknown) => setValues((v) => ({ ...v, [key]: value }))
  const pickers = usePickerData(props)
  // autoFillFromWallet: the prop takes the default wallet's address and is not shown.
  const wallet = pickers.wallets.find((w) => w.isDefault) ?? pickers.wallets[0]
  useEffect(() => {
    if (!wallet) return
    setValues((v) => {
      const next = { ...v }
      for (const p of props) if (p.properties?.autoFillFromWallet && !next[p.key]) next[p.key] = wallet.address
      return next
    })
  }, [wallet?.address])
  const submit = (event: Event) => {
    event.preventDefault()
    void onSubmit(outgoing(props, values))
  }
  return (
    <form class="card props" onSubmit={submit} noValidate>
      {props
        .filter((p) => visible(p, values) && !p.properties?.autoFillFromWallet)
        .map((p) => (
          <div class={`prop${errors[p.key] ? ' invalid' : ''}`} data-prop={p.key}>
            <label for={`prop-${p.key}`}>
              {p.name || p.key}
              {p.required ? ' *' : ''}
            </label>
            {p.description ? <p class="hint">{p.description}</p> : null}
            <Field prop={p} value={values[p.key]} set={(v) => set(p.key, v)} pickers={pickers} />
            {errors[p.key] ? (
              <p class="field-error" role="alert">
                {errors[p.key]}
              </p>
            ) : null}
          </div>
        ))}
      <button type="submit">{submitLabel}</button>
    </form>
  )
}

function Field({
  prop,
  value,
  set,
  pickers,
}: {
  prop: TemplateProp
  value: unknown
  set: (v: unknown) => void
  pickers: { wallets: Wallet[]; connectors: Connector[] }
}) {
  const p = prop.properties ?? {}
  const id = `prop-${prop.key}`
  const onText = (e: Event) => set((e.target as HTMLInputElement).value)
  const onPick = (e: Event) => set((e.target as HTMLSelectElement).value || undefined)
  if (isTable(prop)) return <TableField prop={prop} rows={(value as Array<Record<string, string>>) ?? []} set={set} />
  if (p.inputType === 'walletConnector') {
    return (
      <select id={id} name={prop.key} value={(value as string) ?? ''} onChange={onPick}>
        <option value="">—</option>
        {pickers.wallets.map((w) => (
          <option value={w.id}>
            {w.name} ({w.address.slice(0, 8)}…)
          </option>
        ))}
      </select>
    )
  }
  if (p.inputType === 'notification-channel') {
    const allowed = Array.isArray(p.allowedChannels) ? (p.allowedChannels as string[]) : null
    const channels = pickers.connectors.filter((c) => !allowed || allowed.includes(c.type))
    return (
      <select id={id} name={prop.key} value={(value as string) ?? ''} onChange={onPick}>
        <option value="">—</option>
        {channels.map((c) => (
          <option value={c.id}>
            {c.name} ({c.type})
          </option>
        ))}
      </select>
    )
  }
  if (ADDRESS_TYPES.has(p.inputType ?? '') && p.allowWalletPicker !== false && pickers.wallets.length > 0) {
    // An organization wallet, or any address typed in.
    const own = pickers.wallets.some((w) => w.address === value)
    return (
      <span class="picker">
        <select aria-label={`${prop.key} wallet`} value={own ? (value as string) : ''} onChange={onPick}>
          <option value="">another address…</option>
          {pickers.wallets.map((w) => (
            <option value={w.address}>{w.name}</option>
          ))}
        </select>
        <input
          id={id}
          name={prop.key}
          placeholder="0x…"
          pattern={p.pattern ?? '^0x[0-9a-fA-F]{40}$'}
          value={(value as string) ?? ''}
          onInput={onText}
        />
      </span>
    )
  }
  if (p.inputType === 'tokenAmount') {
    return (
      <input
        id={id}
        name={prop.key}
        inputMode="numeric"
        placeholder={p.placeholder ?? "in the token's smallest unit"}
        pattern="^[0-9]+$"
        value={(value as string) ?? ''}
        onInput={onText}
      />
    )
  }
  if (p.enum?.length) {
    return (
      <select
        id={id}
        name={prop.key}
        value={value === undefined ? '' : String(value)}
        onChange={(e) => {
          const i = (e.target as HTMLSelectElement).selectedIndex - 1
          set(i >= 0 ? p.enum![i] : undefined)
        }}
      >
        <option value="">—</option>
        {p.enum.map((option, i) => (
          <option value={String(option)}>{p.enumLabels?.[i] ?? String(option)}</option>
        ))}
      </select>
    )
  }
  if (prop.type === 'boolean')
    return (
      <input
        id={id}
        name={prop.key}
        type="checkbox"
        checked={value === true}
        onChange={(e) => set((e.target as HTMLInputElement).checked)}
      />
    )
  if (prop.type === 'object' || p.inputType === 'textarea') {
    return (
      <textarea
        id={id}
        name={prop.key}
        rows={prop.type === 'object' ? 6 : 4}
        placeholder={p.placeholder}
        value={(value as string) ?? ''}
        onInput={onText}
      />
    )
  }
  if (prop.type === 'number' || prop.type === 'integer') {
    return (
      <input
        id={id}
        name={prop.key}
        type="number"
        step={prop.type === 'integer' ? 1 : 'any'}
        min={p.minimum}
        max={p.maximum}
        placeholder={p.placeholder}
        value={(value as string) ?? ''}
        onInput={onText}
      />
    )
  }
  const type = prop.sensitive || p.inputType === 'password' ? 'password' : p.inputType === 'email' ? 'email' : 'text'
  const placeholder =
    p.placeholder ??
    (ADDRESS_TYPES.has(p.inputType ?? '') ? '0x…' : p.inputType === 'rrule' ? 'FREQ=DAILY;BYHOUR=9' : undefined)
  return (
    <input
      id={id}
      name={prop.key}
      type={type}
      autocomplete={type === 'password' ? 'new-password' : 'off'}
      pattern={p.pattern}
      placeholder={placeholder}
      value={(value as string) ?? ''}
      onInput={onText}
    />
  )
}

function TableField({
  prop,
  rows,
  set,
}: {
  prop: TemplateProp
  rows: Array<Record<string, string>>
  set: (v: unknown) => void
}) {
  const columns = prop.properties?.columns ?? []
  const min = Math.max(1, prop.properties?.minRows || 1)
  const max = prop.properties?.maxRows || Number.POSITIVE_INFINITY
  const change = (r: number, key: string, v: string) =>
    set(rows.map((row, i) => (i === r ? { ...row, [key]: v } : row)))
  return (
    <table class="csv" data-rows={rows.length}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th>
              {c.name ?? c.key}
              {c.required ? ' *' : ''}
            </th>
          ))}
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((row, r) => (
          <tr>
            {columns.map((c) => (
              <td>
                {c.enum?.length ? (
                  <select
                    aria-label={`${prop.key} ${c.key} ${r + 1}`}
                    value={row[c.key] ?? ''}
                    onChange={(e) => change(r, c.key, (e.target as HTMLSelectElement).value)}
                  >
                    <option value="" />
                    {c.enum.map((o) => (
                      <option>{String(o)}</option>
                    ))}
                  </select>
                ) : (
                  <input
                    aria-label={`${prop.key} ${c.key} ${r + 1}`}
                    value={row[c.key] ?? ''}
                    onInput={(e) => change(r, c.key, (e.target as HTMLInputElement).value)}
                  />
                )}
              </td>
            ))}
            <td>
              <button
                type="button"
                class="link"
                disabled={rows.length <= min}
                onClick={() => set(rows.filter((_, i) => i !== r))}
                aria-label="remove row"
              >
                ✕
              </button>
            </td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <td colSpan={columns.length + 1}>
            <button
              type="button"
              disabled={rows.length >= max}
              onClick={() => set([...rows, Object.fromEntries(columns.map((c) => [c.key, '']))])}
            >
              Add row
            </button>
            <span class="hint">
              {' '}
              {rows.length} row{rows.length === 1 ? '' : 's'}
              {Number.isFinite(max) ? ` of at most ${max}` : ''}
              {min > 1 ? `, at least ${min}` : ''}
            </span>
          </td>
        </tr>
      </tfoot>
    </table>
  )
}
