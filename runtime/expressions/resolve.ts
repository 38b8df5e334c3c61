/**
 * Applies templates to whole JSON values (node payloads): resolveValue renders every string and
 * key, collectReferences lists every path a value refers to so a definition can be checked before
 * it runs. Both walk arrays and plain objects only; other objects are left as they are. Neither
 * gives roots any meaning nor checks that a reference points at an ancestor node.
 */
import { renderTemplate, stringifyValue } from './evaluate.ts'
import { isPlainObject, joinPointer, setOwn } from './json.ts'
import { expressionsOf, parseTemplate } from './parse-template.ts'
import { ExpressionSyntaxError, type Lookup, type PathRef, type Template } from './types.ts'

export type PointedRef = PathRef & { pointer: string }
export interface PointedProblem {
  pointer: string
  message: string
}
export interface References {
  refs: PointedRef[]
  errors: PointedProblem[]
}

/**
 * Deeply resolves a JSON value: every string is rendered; arrays and objects are walked; an object
 * key containing an expression is replaced by its rendered (stringified) value, so keys stay
 * strings. Returns a new value and never mutates the input; values produced by expressions are
 * inserted as the lookup returned them (not copied). Throws ExpressionSyntaxError on a bad template.
 */
export function resolveValue(value: unknown, lookup: Lookup): unknown {
  if (typeof value === 'string') return renderTemplate(parseTemplate(value), lookup)
  if (Array.isArray(value)) return value.map((entry) => resolveValue(entry, lookup))
  if (isPlainObject(value)) return resolveObject(value, lookup)
  return value
}

/**
 * Every path reference in a JSON value (strings and object keys, deeply), with the JSON pointer of
 * the string or key where it occurs. Syntax errors are returned, not thrown.
 */
export function collectReferences(value: unknown): References {
  const found: References = { refs: [], errors: [] }
  collectInto(value, '', found)
  return found
}

function resolveObject(source: Record<string, unknown>, lookup: Lookup): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, entry] of Object.entries(source)) {
    setOwn(out, resolveKey(key, lookup), resolveValue(entry, lookup))
  }
  return out
}

function resolveKey(key: string, lookup: Lookup): string {
  const template = parseTemplate(key)
  return template.kind === 'plain' ? key : stringifyValue(renderTemplate(template, lookup))
}

function collectInto(value: unknown, pointer: string, found: References): void {
  if (typeof value === 'string') {
    collectFromString(value, pointer, found, '')
  } else if (Array.isArray(value)) {
    value.forEach((entry, index) => collectInto(entry, joinPointer(pointer, index), found))
  } else if (isPlainObject(value)) {
    for (const [key, entry] of Object.entries(value)) {
      const child = joinPointer(pointer, key)
      collectFromString(key, child, found, `in key ${JSON.stringify(key)}: `)
      collectInto(entry, child, found)
    }
  }
}

function collectFromString(text: string, pointer: string, found: References, prefix: string): void {
  const template = tryParse(text)
  if (template instanceof ExpressionSyntaxError) {
    found.errors.push({ pointer, message: prefix + template.message })
    return
  }
  for (const expr of expressionsOf(template)) {
    for (const term of expr.terms) if (term.kind === 'path') found.refs.push({ ...term.ref, pointer })
  }
}

function tryParse(text: string): Template | ExpressionSyntaxError {
  try {
    return parseTemplate(text)
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return error
    throw error
  }
}
