/**
 * Masking by value: every occurrence of a registered secret value in the strings (and object
 * keys) of a JSON-like value is replaced by `••••`, as CI systems mask registered secrets in
 * their logs. An organization's connector secrets are masked this way in everything a run keeps
 * or sends (its trigger event, node inputs, results, errors, logs, variables), whatever path
 * brought them there: a webhook payload, an HTTP echo, a resume.
 *
 * The walk is iterative, so no nesting depth overflows it, and a value without any secret in it
 * is returned as it is (one serialization and a substring search decide that).
 */
export const MASK = '••••'

/** Secrets shorter than this are not searched for: they would mask ordinary words. */
export const MIN_MASKED_LENGTH = 8

export type ValueMask = <T>(value: T) => T

export const noMask: ValueMask = (value) => value

/** The organization's masks, as the engine asks for them. */
export interface SecretMasks {
  /** The mask of an organization's secrets as they are now (read again when stale). */
  of(organizationId: string): Promise<ValueMask>
  /** The mask if it was read recently enough to be used as it is; otherwise undefined. */
  peek(organizationId: string): ValueMask | undefined
}

export function createValueMask(secrets: readonly string[], minLength = MIN_MASKED_LENGTH): ValueMask {
  const needles = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= minLength))].sort((a, b) => b.length - a.length)
  if (needles.length === 0) return noMask
  // In JSON text a secret appears escaped (quotes, backslashes, control characters).
  const escaped = needles.map((n) => JSON.stringify(n).slice(1, -1))
  const text = (s: string) => {
    let out = s
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(MASK)
    return out
  }
  const holdsSecret = (value: unknown): boolean => {
    if (typeof value === 'string') return needles.some((n) => value.includes(n))
    if (value === null || typeof value !== 'object') return false
    let json: string | undefined
    try {
      json = JSON.stringify(value)
    } catch {
      return true // too deep or cyclic to serialize: walk it
    }
    return json === undefined ? false : escaped.some((n) => json!.includes(n))
  }
  return <T>(value: T): T => (holdsSecret(value) ? (walk(value, text) as T) : value)
}

/** A copy of `value` with `text` applied to every string and key; iterative, cycles kept as they are. */
function walk(value: unknown, text: (s: string) => string): unknown {
  if (typeof value === 'string') return text(value)
  if (value === null || typeof value !== 'object') return value
  const copies = new Map<object, unknown>()
  const copyOf = (source: object): unknown => (Array.isArray(source) ? new Array(source.length) : Object.create(Object.getPrototypeOf(source) === null ? null : Object.prototype))
  const root = copyOf(value)
  copies.set(value, root)
  const stack: Array<[object, Record<string, unknown> | unknown[]]> = [[value, root as Record<string, unknown>]]
  while (stack.length > 0) {
    const [source, target] = stack.pop()!
    const put = (key: string | number, v: unknown) => {
      let out: unknown = v
      if (typeof v === 'string') out = text(v)
      else if (v !== null && typeof v === 'object') {
        const seen = copies.get(v)
        if (seen !== undefined) out = seen
        else {
          out = copyOf(v)
          copies.set(v, out)
          stack.push([v, out as Record<string, unknown>])
        }
      }
      if (Array.isArray(target)) target[key as number] = out
      else Object.defineProperty(target, typeof key === 'string' ? text(key) : key, { value: out, enumerable: true, writable: true, configurable: true })
    }
    if (Array.isArray(source)) source.forEach((v, i) => put(i, v))
    else for (const key of Object.keys(source)) put(key, (source as Record<string, unknown>)[key])
  }
  return root
}
