/**
 * Masks connector secrets in what a node leaves behind (result, error, logs, variables, wait
 * state) before it reaches the run record, the journal, streams, hooks or logs. A plugin that
 * echoes its API key, or an HTTP error that quotes a URL carrying a token, shows `••••` instead.
 * Secrets shorter than four characters are not searched for (they would mask ordinary text).
 */
export const MASK = '••••'
const MIN_SECRET_LENGTH = 4

export type Redactor = <T>(value: T) => T

const identity: Redactor = (value) => value

/** A function that replaces every occurrence of the secrets in strings of a JSON-like value. */
export function createRedactor(secrets: readonly string[]): Redactor {
  const needles = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  )
  if (needles.length === 0) return identity
  const text = (s: string) =>
    needles.reduce((out, needle) => (out.includes(needle) ? out.split(needle).join(MASK) : out), s)
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return text(value)
    if (depth > 64 || value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[text(k)] = walk(v, depth + 1)
    return out
  }
  return <T>(value: T) => walk(value, 0) as T
}
