/**
 * A JSON value as a tree that stays responsive whatever its size: only the rows in view are in the
 * page (a fixed row height, the rest is empty space to scroll), a container's children are listed
 * only once it is opened, and a container with many children opens into ranges (`[0 … 99]`,
 * `[0 … 9999]`), as the browser's own developer tools do, so no step walks more than a screenful.
 */
import { useMemo, useState } from 'preact/hooks'

const ROW = 20
const HEIGHT = 320
/** The most children (or ranges) one opened container or range lists at once. */
const BUCKET = 100
const TEXT = 160

interface Row {
  /** A JSON pointer to the value, with `#lo-hi` for a range of a container's children. */
  path: string
  depth: number
  label: string
  value: unknown
  range?: [number, number]
}

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === 'object' && v !== null
const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** The keys of a container, in order (the indexes of an array). */
function keysOf(value: Record<string, unknown> | unknown[]): string[] {
  return Array.isArray(value) ? [] : Object.keys(value)
}
const sizeOf = (value: Record<string, unknown> | unknown[], keys: string[]) =>
  Array.isArray(value) ? value.length : keys.length

/** The rows under an opened container or range: its children, or ranges of them when they are many. */
function childRows(row: Row, out: Row[], open: Set<string>, keyCache: Map<unknown, string[]>) {
  const value = row.value as Record<string, unknown> | unknown[]
  let keys = keyCache.get(value)
  if (!keys) keyCache.set(value, (keys = keysOf(value)))
  const [lo, hi] = row.range ?? [0, sizeOf(value, keys)]
  const base = row.range ? row.path.slice(0, row.path.lastIndexOf('#')) : row.path
  let step = 1
  while ((hi - lo) / step > BUCKET) step *= BUCKET
  for (let i = lo; i < hi; i += step) {
    if (step > 1) {
      const end = Math.min(i + step, hi)
      visit({ path: `${base}#${i}-${end}`, depth: row.depth + 1, label: `[${i} … ${end - 1}]`, value, range: [i, end] })
      continue
    }
    const key = Array.isArray(value) ? String(i) : keys[i]
    const child = Array.isArray(value) ? value[i] : value[key]
    visit({ path: `${base}/${pointerKey(key)}`, depth: row.depth + 1, label: key, value: child })
  }
  function visit(child: Row) {
    out.push(child)
    if (open.has(child.path) && isContainer(child.value)) childRows(child, out, open, keyCache)
  }
}

/** Every row shown: the value itself and, for each opened container or range, its children. */
export function rowsOf(value: unknown, open: Set<string>): Row[] {
  const root: Row = { path: '', depth: 0, label: '', value }
  const out: Row[] = [root]
  if (open.has('') && isContainer(value)) childRows(root, out, open, new Map())
  return out
}

/** A short text for a value: a scalar as JSON (long strings cut), a container by its size. */
export function summaryOf(value: unknown): string {
  if (Array.isArray(value)) return `[…] ${value.length} item${value.length === 1 ? '' : 's'}`
  if (isContainer(value)) {
    const n = Object.keys(value).length
    return `{…} ${n} key${n === 1 ? '' : 's'}`
  }
  if (typeof value === 'string')
    return value.length > TEXT
      ? `${JSON.stringify(value.slice(0, TEXT))}… (${value.length} characters)`
      : JSON.stringify(value)
  return value === undefined ? 'undefined' : JSON.stringify(value)
}

export function JsonTree({ value, testid, label }: { value: unknown; testid: string; label: string }) {
  const [open, setOpen] = useState(() => new Set(['']))
  const [top, setTop] = useState(0)
  const rows = useMemo(() => rowsOf(value, open), [value, open])
  const first = Math.max(0, Math.floor(top / ROW) - 5)
  const shown = rows.slice(first, first + Math.ceil(HEIGHT / ROW) + 10)
  const toggle = (path: string) =>
    setOpen((was) => {
      const next = new Set(was)
      if (!next.delete(path)) next.add(path)
      return next
    })
  return (
    <section
      class="json-tree"
      data-testid={testid}
      data-rows={rows.length}
      aria-label={label}
      style={{ height: `${Math.min(HEIGHT, rows.length * ROW + 2)}px` }}
      onScroll={(e) => setTop((e.currentTarget as HTMLElement).scrollTop)}
    >
      <div style={{ height: `${rows.length * ROW}px`, position: 'relative' }}>
        <div style={{ transform: `translateY(${first * ROW}px)` }}>
          {shown.map((row) => (
            <TreeRow key={row.path} row={row} opened={open.has(row.path)} onToggle={toggle} />
          ))}
        </div>
      </div>
    </section>
  )
}

function TreeRow({ row, opened, onToggle }: { row: Row; opened: boolean; onToggle(path: string): void }) {
  const container = isContainer(row.value)
  const text = row.range ? '' : summaryOf(row.value)
  const indent = { paddingLeft: `${row.depth * 14}px` }
  const head = row.label ? <span class="json-key">{row.label}</span> : null
  if (!container)
    return (
      <div class="json-row" data-path={row.path} style={indent}>
        {head}
        {head ? ': ' : null}
        <span class="json-value">{text}</span>
      </div>
    )
  return (
    <button
      type="button"
      class="json-row"
      aria-expanded={opened}
      data-path={row.path}
      style={indent}
      onClick={() => onToggle(row.path)}
    >
      {opened ? '▾ ' : '▸ '}
      {head}
      {head && text ? ': ' : null}
      <span class="json-value">{opened && !row.range ? '' : text}</span>
    </button>
  )
}
