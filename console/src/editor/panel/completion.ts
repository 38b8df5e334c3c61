/**
 * Completion inside `{{ … }}`: at the start of a path the roots (upstream node ids, `$trigger`,
 * `root`, `$vars`, `$props` …), after a dot the fields one step below, taken from the last run's
 * values, else the upstream node's last result, else its result schema. Pure: the CodeMirror
 * source in expression-editor.tsx turns the answer into its own shape.
 */
import {
  type ExpressionScope,
  FIXED_ROOTS,
  keysOfSchema,
  keysOfValue,
  NODE_FIELDS,
  rootSchema,
  rootValue,
  walkSchema,
  walkValue,
} from './scope.ts'

export interface Candidate {
  label: string
  /** What is inserted; differs from the label for keys that need brackets. */
  apply: string
  detail: string
}

export interface Completion {
  /** Where the replaced word starts. */
  from: number
  candidates: Candidate[]
}

const PATH_AT_END = /([A-Za-z_$][A-Za-z0-9_$-]*)((?:\.[A-Za-z0-9_$-]*)*)$/
const SEGMENT = /^[A-Za-z0-9_$-]+$/

/** Whether `pos` is inside an open `{{ … }}` of `text`, and where its inside starts. */
export function openExpressionAt(text: string, pos: number): number | undefined {
  const open = text.lastIndexOf('{{', Math.max(pos - 2, 0))
  if (open < 0 || open + 2 > pos) return undefined
  const close = text.indexOf('}}', open + 2)
  return close >= 0 && close < pos ? undefined : open + 2
}

/** The candidates at `pos` in `text`, or undefined outside an expression. */
export function completeAt(text: string, pos: number, scope: ExpressionScope): Completion | undefined {
  const start = openExpressionAt(text, pos)
  if (start === undefined) return undefined
  const before = text.slice(start, pos)
  const found = PATH_AT_END.exec(before)
  if (!found) {
    // Right after `{{`, a space or `||`: every root.
    return /(^|\s|\|)$/.test(before) ? { from: pos, candidates: rootCandidates(scope) } : undefined
  }
  const [, root, dotted] = found
  if (!dotted) return { from: pos - root.length, candidates: rootCandidates(scope) }
  const segments = dotted.slice(1).split('.')
  const typed = segments.pop() ?? ''
  return { from: pos - typed.length, candidates: fieldCandidates(scope, root, segments) }
}

export function rootCandidates(scope: ExpressionScope): Candidate[] {
  const nodes = scope.upstream.map((n) => ({ label: n.id, apply: n.id, detail: n.type }))
  const fixed = Object.entries(FIXED_ROOTS).map(([label, detail]) => ({ label, apply: label, detail }))
  return [...nodes, ...fixed]
}

/** The keys one step below `root.path…`, with the type of what each holds. */
export function fieldCandidates(scope: ExpressionScope, root: string, path: readonly string[]): Candidate[] {
  const value = walkValue(valueOfRoot(scope, root), path)
  const fromValue = keysOfValue(value)
  if (fromValue) return fromValue.map((key) => candidate(key, describe(walkValue(value, [key]))))
  const schema = walkSchema(rootSchema(scope, root), path)
  const fromSchema = keysOfSchema(schema)
  if (fromSchema) return fromSchema.map((key) => candidate(key, schemaType(walkSchema(schema, [key]))))
  const isNode = root === 'root' || scope.upstream.some((n) => n.id === root)
  return isNode && path.length === 0 ? NODE_FIELDS.map((key) => candidate(key, 'node')) : []
}

/** A root's value in the last run, else (for an upstream node) its last result. */
export function valueOfRoot(scope: ExpressionScope, root: string): unknown {
  const value = rootValue(scope, root)
  if (value !== undefined) return value
  const node = scope.upstream.find((n) => n.id === root)
  return node && node.lastResult !== undefined ? { result: node.lastResult } : undefined
}

const candidate = (key: string, detail: string): Candidate => ({
  label: key,
  apply: SEGMENT.test(key) ? key : `['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`,
  detail,
})

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `array(${value.length})`
  if (typeof value === 'string') return value.length > 24 ? `"${value.slice(0, 24)}…"` : JSON.stringify(value)
  if (typeof value === 'object') return 'object'
  return String(value)
}

function schemaType(schema: Record<string, any> | undefined): string {
  if (!schema) return ''
  if (Array.isArray(schema.type)) return schema.type.join(' | ')
  return typeof schema.type === 'string' ? schema.type : schema.anyOf ? 'union' : 'any'
}
