/**
 * Splits a string into plain text and `{{ … }}` expressions, and remembers the result: engines
 * parse the same payload strings for every run, so parsed templates are cached (bounded, oldest
 * evicted first) and frozen so that no caller can alter a shared entry. There is no escape for a
 * literal `{{`; a string containing one is an expression or a syntax error.
 */
import { parseExpression } from './parse-expression.ts'
import { ExpressionSyntaxError, type Expression, type Template } from './types.ts'

const CACHE_LIMIT = 10_000
/** Longer strings are parsed every time, so the cache holds at most ~40 MB of source. */
const CACHEABLE_LENGTH = 4_096
const cache = new Map<string, Template>()

/** True when the string contains `{{`, i.e. it is an expression template (or a malformed one). */
export function hasExpression(text: string): boolean {
  return text.includes('{{')
}

/** Parses a template; throws ExpressionSyntaxError (with the offset) when it is malformed. */
export function parseTemplate(text: string): Template {
  if (!hasExpression(text)) return Object.freeze({ kind: 'plain', value: text })
  const cached = cache.get(text)
  if (cached !== undefined) return cached
  const template = deepFreeze(scanTemplate(text))
  remember(text, template)
  return template
}

/** The expressions of a template, in order of appearance. */
export function expressionsOf(template: Template): Expression[] {
  if (template.kind === 'whole') return [template.expr]
  if (template.kind === 'plain') return []
  return template.parts.filter((part): part is Expression => typeof part !== 'string')
}

function scanTemplate(text: string): Template {
  const parts: Array<string | Expression> = []
  let pos = 0
  for (let open = text.indexOf('{{'); open >= 0; open = text.indexOf('{{', pos)) {
    if (open > pos) parts.push(text.slice(pos, open))
    const close = findClose(text, open)
    parts.push(parseExpression(text, open, close))
    pos = close + 2
  }
  if (pos < text.length) parts.push(text.slice(pos))
  const [first] = parts
  if (parts.length === 1 && typeof first !== 'string') return { kind: 'whole', expr: first }
  return { kind: 'text', parts }
}

/** Index of the `}}` closing the `{{` at `open`; a `}}` inside a quoted string does not close it. */
function findClose(text: string, open: number): number {
  for (let i = open + 2; i < text.length; i++) {
    const ch = text[i]
    if (ch === '}' && text[i + 1] === '}') return i
    if (ch === "'" || ch === '"') i = skipQuoted(text, i)
  }
  throw new ExpressionSyntaxError('unclosed "{{": no matching "}}"', open)
}

function skipQuoted(text: string, start: number): number {
  const quote = text[start]
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === quote) return i
  }
  throw new ExpressionSyntaxError('unterminated string literal', start)
}

function remember(text: string, template: Template): void {
  if (text.length > CACHEABLE_LENGTH) return
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next()
    if (!oldest.done) cache.delete(oldest.value)
  }
  cache.set(text, template)
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  for (const child of Object.values(value)) deepFreeze(child)
  return Object.freeze(value)
}
