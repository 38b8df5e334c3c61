/**
 * Masking by value: every occurrence of a registered secret value in the strings (and object
 * keys) of a JSON-like value is replaced by `••••`, as CI systems mask registered secrets in
 * their logs. An organization's connector secrets are masked this way in everything a run keeps
 * or sends (its trigger event, node inputs, results, errors, logs, variables), whatever path
 * brought them there: a webhook payload, an HTTP echo, a resume.
 *
 * The organization's stored payment cards are masked the same way, and more loosely: a number
 * whatever separates its digits, and its CVC where it is plainly the card's (security/card-mask.ts).
 *
 * The walk is iterative, so no nesting depth overflows it, and a value without any secret in it
 * is returned as it is (one serialization and a substring search decide that).
 */
import { createCardMasking, type StoredCard } from './card-mask.ts'

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

export interface ValueMaskOptions {
  minLength?: number
  /** Stored payment cards: their numbers in any spacing, and their CVCs where plainly theirs. */
  cards?: readonly StoredCard[]
}

export function createValueMask(secrets: readonly string[], options: ValueMaskOptions = {}): ValueMask {
  const minLength = options.minLength ?? MIN_MASKED_LENGTH
  const needles = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= minLength))].sort(
    (a, b) => b.length - a.length,
  )
  const cards = createCardMasking(options.cards ?? [])
  if (needles.length === 0 && !cards) return noMask
  // In JSON text a secret appears escaped (quotes, backslashes, control characters).
  const escaped = needles.map((n) => JSON.stringify(n).slice(1, -1))
  const plain = (s: string) => {
    let out = s
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(MASK)
    return out
  }
  const text = cards ? (s: string) => cards.text(plain(s)) : plain
  // A field's value: by its name too when there are cards (a CVC is masked only where named so).
  const leaf: Leaf = cards
    ? (value, name) =>
        typeof value === 'string' || typeof value === 'number'
          ? cards.field(name ?? '', typeof value === 'string' ? plain(value) : value)
          : value
    : (value) => (typeof value === 'string' ? plain(value) : value)
  const holdsSecret = (value: unknown): boolean => {
    if (typeof value === 'string') return needles.some((n) => value.includes(n)) || (cards?.mayHold(value) ?? false)
    if (typeof value === 'number') return cards?.mayHold(String(value)) ?? false
    if (value === null || typeof value !== 'object') return false
    let json: string | undefined
    try {
      json = JSON.stringify(value)
    } catch {
      return true // too deep or cyclic to serialize: walk it
    }
    return json === undefined ? false : escaped.some((n) => json!.includes(n)) || (cards?.mayHold(json) ?? false)
  }
  return <T>(value: T): T => (holdsSecret(value) ? (walk(value, text, leaf) as T) : value)
}

/** A string or number masked, knowing the name of the field that holds it (none in an array). */
type Leaf = (value: unknown, name: string | undefined) => unknown

/** A copy of `value` with `text` applied to every key and `leaf` to every value; iterative, cycles kept as they are. */
function walk(value: unknown, text: (s: string) => string, leaf: Leaf): unknown {
  if (value === null || typeof value !== 'object') return leaf(value, undefined)
  const copies = new Map<object, unknown>()
  const copyOf = (source: object): unknown =>
    Array.isArray(source)
      ? new Array(source.length)
      : Object.create(Object.getPrototypeOf(source) === null ? null : Object.prototype)
  const root = copyOf(value)
  copies.set(value, root)
  const stack: Array<[object, Record<string, unknown> | unknown[]]> = [[value, root as Record<string, unknown>]]
  while (stack.length > 0) {
    const [source, target] = stack.pop()!
    const put = (key: string | number, v: unknown) => {
      let out: unknown = v
      if (v !== null && typeof v === 'object') {
        const seen = copies.get(v)
        if (seen !== undefined) out = seen
        else {
          out = copyOf(v)
          copies.set(v, out)
          stack.push([v, out as Record<string, unknown>])
        }
      } else out = leaf(v, typeof key === 'string' ? key : undefined)
      if (Array.isArray(target)) target[key as number] = out
      else
        Object.defineProperty(target, typeof key === 'string' ? text(key) : key, {
          value: out,
          enumerable: true,
          writable: true,
          configurable: true,
        })
    }
    if (Array.isArray(source)) source.forEach((v, i) => put(i, v))
    else for (const key of Object.keys(source)) put(key, (source as Record<string, unknown>)[key])
  }
  return root
}
