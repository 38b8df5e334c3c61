/**
 * Evaluates parsed expressions against a Lookup. The evaluator gives roots no meaning: it asks the
 * lookup for a root's value and walks the path over own properties only, so prototype members
 * (`__proto__`, `constructor`, `toString` …) are never reachable. It never throws on missing data
 * (a walk into undefined or null gives undefined) and never runs code.
 */
import type { Expression, Lookup, PathRef, Template, Term } from './types.ts'

const BLOCKED_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/

/** The first term that is not undefined, null or '' ; else the last term's value. */
export function evaluateExpression(expr: Expression, lookup: Lookup): unknown {
  let value: unknown
  for (const term of expr.terms) {
    value = evaluateTerm(term, lookup)
    if (value !== undefined && value !== null && value !== '') return value
  }
  return value
}

/** A `whole` template keeps its value's type; a `text` template is rendered to a string. */
export function renderTemplate(template: Template, lookup: Lookup): unknown {
  if (template.kind === 'plain') return template.value
  if (template.kind === 'whole') return evaluateExpression(template.expr, lookup)
  let out = ''
  for (const part of template.parts) {
    out += typeof part === 'string' ? part : stringifyValue(evaluateExpression(part, lookup))
  }
  return out
}

/** The value of a path; undefined as soon as the walk leaves the data. */
export function readPath(ref: PathRef, lookup: Lookup): unknown {
  if (BLOCKED_KEYS.has(ref.root)) return undefined
  let value = lookup(ref.root)
  for (const key of ref.path) {
    if (value === undefined || value === null) return undefined
    value = step(value, key)
  }
  return value
}

/** How an expression inside a longer string is written: '' for undefined and null, JSON for objects. */
export function stringifyValue(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'object') return toJson(value)
  if (typeof value === 'function' || typeof value === 'symbol') return ''
  return String(value)
}

function evaluateTerm(term: Term, lookup: Lookup): unknown {
  return term.kind === 'literal' ? term.value : readPath(term.ref, lookup)
}

function step(value: unknown, key: string): unknown {
  if (BLOCKED_KEYS.has(key)) return undefined
  if (typeof value === 'string') return key === 'length' ? value.length : undefined
  if (Array.isArray(value)) {
    if (key === 'length') return value.length
    return ARRAY_INDEX.test(key) ? value[Number(key)] : undefined
  }
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, key)) {
    return (value as Record<string, unknown>)[key]
  }
  return undefined
}

/** Circular or BigInt-holding values cannot be JSON; they render as '' rather than fail a run. */
function toJson(value: object): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return ''
  }
}
