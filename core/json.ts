/** JSON helpers: a canonical form (sorted keys) for equality and content hashes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined) out[key] = sortKeys(v)
    }
    return out
  }
  return value
}

/** Parses JSON text, returning `fallback` for null or malformed input. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}

/**
 * Whether arrays and objects in `value` nest deeper than `limit` (the value itself is level 1).
 * Iterative, so any depth is measured without a stack overflow; stops as soon as it knows.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false
  const stack: Array<[object, number]> = [[value, 1]]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (depth > limit) return true
    if (seen.has(current)) continue
    seen.add(current)
    const children = Array.isArray(current) ? current : Object.values(current)
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
  }
  return false
}
