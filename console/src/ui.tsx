/** Small pieces every page uses. */
import { useEffect, useState } from 'preact/hooks'
import type { ComponentChildren } from 'preact'
import type { ApiError } from './api.ts'

export function StatusBadge({ status }: { status: string }) {
  return (
    <span class={`badge status-${status}`} data-status={status}>
      {status}
    </span>
  )
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null
  const e = error as ApiError
  return (
    <div class="error" role="alert">
      <strong>{e.message ?? String(error)}</strong>
      {e.details?.length ? (
        <ul>
          {e.details.map((d) => (
            <li>
              {d.path ? <code>{d.path}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

/** Loads with `load` whenever `deps` change; `reload` loads again. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: null,
    loading: true,
  })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: undefined, error, loading: false }),
    )
    return () => {
      live = false
    }
  }, [...deps, tick])
  return { ...state, reload: () => setTick((n) => n + 1) }
}

/**
 * The error of a person's action: `run(work)` clears the last error, runs the work and keeps what
 * it threw, so the page shows why the action failed. It answers what the work answered, or
 * nothing when it threw.
 */
export function useAction(): {
  error: unknown
  setError: (e: unknown) => void
  run: <T>(work: () => Promise<T>) => Promise<T | undefined>
} {
  const [error, setError] = useState<unknown>(null)
  const run = async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    setError(null)
    try {
      return await work()
    } catch (e) {
      setError(e)
      return undefined
    }
  }
  return { error, setError, run }
}

export function Page({
  title,
  actions,
  children,
}: {
  title: ComponentChildren
  actions?: ComponentChildren
  children: ComponentChildren
}) {
  return (
    <section class="page">
      <header class="page-head">
        <h1>{title}</h1>
        <div class="actions">{actions}</div>
      </header>
      {children}
    </section>
  )
}

/** What an action just did, read out to assistive technology too. */
export function Notice({ text }: { text: string | null }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')

/** Asks first, showing what the server says will happen. */
export function confirmed(message: string): boolean {
  return window.confirm(message)
}

/** The JSON a person typed into a field, or an error that says which field is not JSON. */
export function parseTyped(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new Error(`the ${what} is not JSON: ${(e as Error).message}`)
  }
}
