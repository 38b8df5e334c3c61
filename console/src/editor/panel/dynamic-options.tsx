/**
 * A field whose allowed values the plugin loads (`"x-dynamic-options": true`): a search box, the
 * values of the pages loaded so far, "load more" while the plugin has more, and the current
 * value kept when the list reloads (for another connector, a search, other payload values),
 * with a note when the plugin no longer offers it. A field inside objects or arrays is asked for
 * by its path (`target.board`, `routes[].channel`), its own value sent under that path.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../../api.ts'
import { domId, type FormContext } from './form-context.ts'
import { optionKeyOf } from './pointer.ts'
import type { FieldModel } from './schema-model.ts'

interface Item {
  label: string
  value: unknown
}
interface Answer {
  items: Item[]
  nextCursor: string | null
  selected: { value: unknown; offered: boolean } | null
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Loads the first page again whenever the search, the connector or the other payload values change. */
function useOptions(field: FieldModel, ctx: FormContext, value: unknown, search: string) {
  const [state, setState] = useState<{ items: Item[]; next: string | null; offered: boolean; error?: string }>({
    items: [],
    next: null,
    offered: true,
  })
  const key = optionKeyOf(ctx.node, field.pointer)
  const payload = (ctx.node.payload ?? {}) as Record<string, unknown>
  // A nested field's own value goes under its path: the loader reports on it as the selection.
  const values = Object.hasOwn(payload, key) ? payload : { ...payload, [key]: value }
  const load = async (cursor?: string) => {
    try {
      const body = { field: key, connectorId: ctx.connectorId, values, search: search || undefined, cursor }
      const answer = await api<Answer>('POST', ctx.optionsPath, body)
      setState((s) => ({
        items: cursor ? [...s.items, ...answer.items] : answer.items,
        next: answer.nextCursor,
        offered: answer.selected ? answer.selected.offered : true,
      }))
    } catch (e) {
      setState((s) => ({ ...s, error: (e as Error).message }))
    }
  }
  const others = JSON.stringify({ ...values, [key]: undefined })
  useEffect(() => {
    const timer = setTimeout(() => void load(), search ? 250 : 0)
    return () => clearTimeout(timer)
  }, [ctx.optionsPath, ctx.connectorId, search, others, JSON.stringify(value)])
  return { ...state, more: () => state.next && load(state.next) }
}

export function DynamicOptions(props: { field: FieldModel; ctx: FormContext; value: unknown; inputId: string }) {
  const { field, ctx, value } = props
  const [search, setSearch] = useState('')
  const options = useOptions(field, ctx, value, search)
  const current = options.items.findIndex((item) => same(item.value, value))
  const searchId = domId('search', field.pointer)
  return (
    <div class="dynamic-options">
      <label for={searchId} class="sr-label">
        search {field.label.toLowerCase()}
      </label>
      <input
        id={searchId}
        type="search"
        placeholder="search…"
        data-testid={`options-search:${field.pointer}`}
        value={search}
        onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
      />
      <select
        id={props.inputId}
        data-testid={`field:${field.pointer}`}
        size={Math.min(6, Math.max(2, options.items.length + 1))}
        value={current >= 0 ? String(current) : value === undefined ? '' : 'current'}
        onChange={(e) => {
          const picked = (e.target as HTMLSelectElement).value
          if (picked === '') ctx.onChange(field.pointer, undefined)
          else if (picked !== 'current') ctx.onChange(field.pointer, options.items[Number(picked)].value)
        }}
      >
        <option value="">—</option>
        {current < 0 && value !== undefined ? <option value="current">{String(JSON.stringify(value))}</option> : null}
        {options.items.map((item, i) => (
          <option value={String(i)}>{item.label}</option>
        ))}
      </select>
      {options.next ? (
        <button type="button" onClick={() => void options.more()}>
          load more
        </button>
      ) : null}
      {value !== undefined && !options.offered ? (
        <p class="field-warning" data-testid={`not-offered:${field.pointer}`}>
          {JSON.stringify(value)} is no longer offered
        </p>
      ) : null}
      {options.error ? <p class="field-error">{options.error}</p> : null}
    </div>
  )
}
