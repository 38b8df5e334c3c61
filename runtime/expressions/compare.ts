/**
 * Equality and ordering for conditions. JSON payloads and rendered templates mix numbers with
 * numeric strings ("150") and booleans with "true"/"false", so comparisons at the top level
 * coerce between them; nested values (inside arrays and objects) compare strictly. Missing values
 * (undefined) and null are equal, as JSON cannot tell them apart. Nothing here throws.
 */

const NUMERIC = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/

/** A finite number, or a string that is a decimal number; else undefined. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string' && NUMERIC.test(value)) return Number(value)
  return undefined
}

/** `$eq` semantics: deep equality, with number/numeric-string and boolean/"true"|"false" coercion. */
export function looseEqual(a: unknown, b: unknown): boolean {
  if ((a === undefined || a === null) && (b === undefined || b === null)) return true
  if (typeof a === 'string' && typeof b !== 'string') return looseEqual(b, a)
  if (typeof b === 'string') {
    if (typeof a === 'number') return a === toNumber(b)
    if (typeof a === 'boolean') return String(a) === b
  }
  return deepEqual(a, b)
}

/** Strict structural equality of JSON values (own enumerable keys, order-insensitive). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((entry, index) => deepEqual(entry, b[index]))
  }
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const keys = Object.keys(left)
  if (keys.length !== Object.keys(right).length) return false
  return keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]))
}

/**
 * Negative, zero or positive when both sides are numbers (numeric strings coerced) or both are
 * strings (compared by code unit); undefined when they cannot be ordered.
 */
export function compareOrder(a: unknown, b: unknown): number | undefined {
  const x = toNumber(a)
  const y = toNumber(b)
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  return undefined
}
