/**
 * RFC 6901 JSON pointers into a node's definition object: read a value, write one without
 * changing the original (the editor keeps every state for undo), build pointers from keys, and
 * name a payload field as a plugin's option loader does.
 */

export const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1')
export const unescapeToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~')

/** The pointer of `key` inside the value `base` points at. */
export const childPointer = (base: string, key: string | number): string => `${base}/${escapeToken(String(key))}`

/** The keys of a pointer; '' is the whole document. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) throw new Error(`a JSON pointer starts with "/": ${pointer}`)
  return pointer.slice(1).split('/').map(unescapeToken)
}

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] =>
  typeof value === 'object' && value !== null

/** The value at `pointer`, or undefined when the path leaves the document. */
export function getAt(document: unknown, pointer: string): unknown {
  let value = document
  for (const key of parsePointer(pointer)) {
    if (!isContainer(value) || !Object.hasOwn(value, key)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/**
 * A copy of `document` with `value` at `pointer`, creating the objects on the way; undefined
 * removes the key (or an array's element). Containers off the path are shared, not copied.
 */
export function setAt(document: unknown, pointer: string, value: unknown): unknown {
  return setPath(document, parsePointer(pointer), value)
}

function setPath(current: unknown, keys: string[], value: unknown): unknown {
  if (keys.length === 0) return value
  const [key, ...rest] = keys
  if (Array.isArray(current)) {
    const index = key === '-' ? current.length : Number(key)
    const copy = [...current]
    const next = setPath(current[index], rest, value)
    if (next === undefined && rest.length === 0) copy.splice(index, 1)
    else copy[index] = next
    return copy
  }
  const object: Record<string, unknown> = isContainer(current) ? { ...(current as Record<string, unknown>) } : {}
  const next = setPath(object[key], rest, value)
  if (next === undefined) delete object[key]
  else object[key] = next
  return object
}

/**
 * The loader's name of the field at `pointer` (`/payload/…`): its top-level key, or its path
 * through objects (`.`) and array items (`[]`), as the plugin names its loader.
 */
export function optionKeyOf(node: Record<string, unknown>, pointer: string): string {
  const [, ...keys] = parsePointer(pointer)
  const parts: string[] = []
  let value: unknown = node.payload
  for (const key of keys) {
    // An index into an array (or, where the value is not there yet, a number) is an item.
    const item = Array.isArray(value) || (!isContainer(value) && /^\d+$/.test(key))
    if (item && parts.length > 0) parts[parts.length - 1] += '[]'
    else parts.push(key)
    value = isContainer(value) ? (value as Record<string, unknown>)[key] : undefined
  }
  return parts.join('.')
}
