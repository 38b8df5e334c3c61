/**
 * Small helpers for walking JSON values: plain-object test, JSON pointers (RFC 6901) and a
 * property write that cannot touch a prototype. No expression knowledge lives here.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Appends one reference token to a JSON pointer, escaping `~` and `/`. */
export function joinPointer(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`
}

/** Writes an own data property, even for the key `__proto__` (which `=` would treat as the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    target[key] = value
  }
}
