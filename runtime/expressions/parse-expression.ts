/**
 * Parses the inside of one `{{ … }}`: terms joined by `||`, each a literal (number, quoted string,
 * true, false, null) or a path (`root.a[0]["b c"]`). Offsets are those of the whole template, so
 * errors point at the right character. It does not find the braces (parse-template.ts does that)
 * and it evaluates nothing.
 */
import { ExpressionSyntaxError, type Expression, type Term } from './types.ts'

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/y
const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$-]*/y
const DOT_SEGMENT = /[A-Za-z0-9_$-]+/y
const DIGITS = /\d+/y
const KEYWORDS = new Map<string, unknown>([
  ['true', true],
  ['false', false],
  ['null', null],
])
const ESCAPABLE = new Set(["'", '"', '\\'])

interface Cursor {
  readonly text: string
  readonly end: number
  pos: number
}

/** Parses `text.slice(open, close + 2)`, where `open` is the index of `{{` and `close` that of `}}`. */
export function parseExpression(text: string, open: number, close: number): Expression {
  const cur: Cursor = { text, end: close, pos: open + 2 }
  skipSpace(cur)
  if (cur.pos === cur.end) throw new ExpressionSyntaxError('empty expression', open)
  const terms = [parseTerm(cur)]
  for (skipSpace(cur); cur.pos < cur.end; skipSpace(cur)) terms.push(parseAlternative(cur))
  return { terms, source: text.slice(open, close + 2) }
}

function parseAlternative(cur: Cursor): Term {
  const at = cur.pos
  if (!cur.text.startsWith('||', at)) {
    throw new ExpressionSyntaxError(`unexpected ${describeAt(cur, at)}: expected "||" or "}}"`, at)
  }
  cur.pos += 2
  skipSpace(cur)
  if (cur.pos === cur.end || cur.text.startsWith('||', cur.pos)) {
    throw new ExpressionSyntaxError('dangling "||": expected a path or a literal after it', at)
  }
  return parseTerm(cur)
}

function parseTerm(cur: Cursor): Term {
  const start = cur.pos
  const ch = cur.text[start]
  if (ch === "'" || ch === '"') return { kind: 'literal', value: parseString(cur) }
  if (ch === '-' || isDigit(ch)) return { kind: 'literal', value: parseNumber(cur) }
  const name = match(cur, IDENTIFIER)
  if (name === undefined) throw termStartError(cur)
  if (KEYWORDS.has(name)) return { kind: 'literal', value: KEYWORDS.get(name) }
  const path = parseSegments(cur)
  return { kind: 'path', ref: { root: name, path, text: cur.text.slice(start, cur.pos) } }
}

function termStartError(cur: Cursor): ExpressionSyntaxError {
  if (cur.text.startsWith('||', cur.pos)) {
    return new ExpressionSyntaxError('dangling "||": expected a path or a literal before it', cur.pos)
  }
  return new ExpressionSyntaxError(`unexpected ${describeAt(cur, cur.pos)}: expected a path or a literal`, cur.pos)
}

function parseNumber(cur: Cursor): number {
  const start = cur.pos
  const raw = match(cur, NUMBER)
  if (raw === undefined || !endsTerm(cur)) {
    throw new ExpressionSyntaxError(`bad number literal "${wordAt(cur.text, start, cur.end)}"`, start)
  }
  return Number(raw)
}

/** Reads a quoted string; only \' \" and \\ are escapes, anything else after a backslash is an error. */
function parseString(cur: Cursor): string {
  const start = cur.pos
  const quote = cur.text[start]
  let out = ''
  for (let i = start + 1; i < cur.end; i++) {
    const ch = cur.text[i]
    if (ch === quote) {
      cur.pos = i + 1
      return out
    }
    if (ch !== '\\') {
      out += ch
      continue
    }
    const next = cur.text[i + 1]
    if (!ESCAPABLE.has(next)) {
      throw new ExpressionSyntaxError(`bad escape "\\${next ?? ''}" in a string literal (allowed: \\' \\" \\\\)`, i)
    }
    out += next
    i++
  }
  throw new ExpressionSyntaxError('unterminated string literal', start)
}

function parseSegments(cur: Cursor): string[] {
  const path: string[] = []
  while (cur.pos < cur.end) {
    const ch = cur.text[cur.pos]
    if (ch === '.') path.push(parseDotSegment(cur))
    else if (ch === '[') path.push(parseBracketSegment(cur))
    else break
  }
  return path
}

function parseDotSegment(cur: Cursor): string {
  const dot = cur.pos++
  const name = match(cur, DOT_SEGMENT)
  if (name === undefined) throw new ExpressionSyntaxError('expected a property name or an index after "."', dot)
  return name
}

function parseBracketSegment(cur: Cursor): string {
  const open = cur.pos++
  skipSpace(cur)
  const ch = cur.text[cur.pos]
  const key = ch === "'" || ch === '"' ? parseString(cur) : match(cur, DIGITS)
  if (key === undefined) {
    throw new ExpressionSyntaxError('bad bracket: expected an index or a quoted key after "["', open)
  }
  skipSpace(cur)
  if (cur.pos >= cur.end || cur.text[cur.pos] !== ']') {
    throw new ExpressionSyntaxError(`bad bracket: expected "]" but found ${describeAt(cur, cur.pos)}`, cur.pos)
  }
  cur.pos++
  return key
}

function match(cur: Cursor, pattern: RegExp): string | undefined {
  pattern.lastIndex = cur.pos
  const found = pattern.exec(cur.text)
  if (found === null) return undefined
  cur.pos += found[0].length
  return found[0]
}

/** A literal must be followed by space, `||` or the closing braces. */
function endsTerm(cur: Cursor): boolean {
  return cur.pos >= cur.end || isSpace(cur.text[cur.pos]) || cur.text[cur.pos] === '|'
}

function skipSpace(cur: Cursor): void {
  while (cur.pos < cur.end && isSpace(cur.text[cur.pos])) cur.pos++
}

function wordAt(text: string, start: number, end: number): string {
  let stop = start
  while (stop < end && !isSpace(text[stop]) && text[stop] !== '|') stop++
  return text.slice(start, stop)
}

function describeAt(cur: Cursor, pos: number): string {
  return pos >= cur.end ? '"}}"' : JSON.stringify(cur.text[pos])
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r'
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9'
}
