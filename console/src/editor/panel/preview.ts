/**
 * The preview of a field holding `{{ … }}` against the last run, evaluated in the browser with the
 * engine's own expression language (pure code, no Node API), and the references a node's result
 * schema or last result does not have, shown as warnings before the workflow runs.
 */
import {
  ExpressionSyntaxError,
  expressionsOf,
  hasExpression,
  parseTemplate,
  renderTemplate,
  type Template,
} from '../../../../runtime/expressions/index.ts'
import { valueOfRoot } from './completion.ts'
import { type ExpressionScope, isKnownRoot, keysOfSchema, rootSchema, walkSchema, walkValue } from './scope.ts'

export type Preview =
  | { kind: 'plain' }
  | { kind: 'no-run' }
  | { kind: 'value'; value: unknown }
  | { kind: 'error'; message: string }

function parse(text: string): Template | { error: string } {
  try {
    return parseTemplate(text)
  } catch (error) {
    return { error: error instanceof ExpressionSyntaxError ? error.message : String(error) }
  }
}

/** What `text` gives against the last run: its value, 'no run yet', or why it does not parse. */
export function previewOf(text: string, scope: ExpressionScope): Preview {
  if (!hasExpression(text)) return { kind: 'plain' }
  const template = parse(text)
  if ('error' in template) return { kind: 'error', message: template.error }
  if (!scope.lastRun) return { kind: 'no-run' }
  return { kind: 'value', value: renderTemplate(template, (root) => valueOfRoot(scope, root)) }
}

/** How the preview shows a value: JSON, cut short past `max` characters. */
export function previewText(value: unknown, max = 400): string {
  if (value === undefined) return 'undefined (nothing at this path in the last run)'
  let text: string
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value, null, 2) ?? String(value))
  } catch {
    text = String(value)
  }
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/**
 * The references of `text` that cannot resolve: a root that is neither fixed nor upstream, or a
 * field that the root's last value and its result schema both lack.
 */
export function referenceWarnings(text: string, scope: ExpressionScope): string[] {
  if (!hasExpression(text)) return []
  const template = parse(text)
  if ('error' in template) return []
  const warnings: string[] = []
  for (const expression of expressionsOf(template)) {
    for (const term of expression.terms) {
      if (term.kind !== 'path') continue
      const problem = referenceProblem(scope, term.ref.root, term.ref.path)
      if (problem) warnings.push(`{{${term.ref.text}}}: ${problem}`)
    }
  }
  return warnings
}

/** Roots whose fields the editor cannot know (loop items, variables without a run). */
const OPEN_ROOTS = new Set(['$vars', '$props', '$workflow', '$run', '$item', '$index', '$parent_item', '$for', '$card'])

function referenceProblem(scope: ExpressionScope, root: string, path: readonly string[]): string | undefined {
  if (OPEN_ROOTS.has(root)) return undefined
  if (!isKnownRoot(scope, root)) return `"${root}" is not a node that runs before this one`
  const value = valueOfRoot(scope, root)
  const schema = rootSchema(scope, root)
  for (let depth = 1; depth <= path.length; depth++) {
    const parent = path.slice(0, depth - 1)
    const key = path[depth - 1]
    const known = knownKeys(walkValue(value, parent), walkSchema(schema, parent))
    if (known && !known.has(key)) return `"${key}" is not a field of ${[root, ...parent].join('.')}`
    if (!known) return undefined
  }
  return undefined
}

/** The keys a step may take, when the last value or the schema says; undefined when anything goes. */
function knownKeys(value: unknown, schema: Record<string, any> | undefined): Set<string> | undefined {
  const keys = new Set<string>()
  if (typeof value === 'object' && value !== null) {
    if (Array.isArray(value)) return undefined
    for (const key of Object.keys(value)) keys.add(key)
  }
  const fromSchema = keysOfSchema(schema)
  if (schema && !fromSchema) return undefined
  if (schema?.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined
  for (const key of fromSchema ?? []) keys.add(key)
  return keys.size ? keys : undefined
}
