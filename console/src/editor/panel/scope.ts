/**
 * What an expression in a node's field can see, in the editor: the roots the engine gives it
 * (`$trigger`, `root`, `$vars`, `$props`, upstream node ids …) with their fields taken from the
 * last run's values, else from the nodes' result schemas. Completion, the preview and the
 * reference warnings all read this one description.
 */
import type { JsonSchema } from './schema-model.ts'

export interface UpstreamNode {
  id: string
  type: string
  resultSchema?: unknown
  lastResult?: unknown
}

export interface LastRun {
  id: string
  nodes: Record<string, any>
  triggerEvent?: unknown
  vars?: unknown
  props?: unknown
}

export interface ExpressionScope {
  upstream: UpstreamNode[]
  lastRun?: LastRun
}

/** Roots that are always there, with what they hold. */
export const FIXED_ROOTS: Record<string, string> = {
  root: 'the trigger node (root.result is the event)',
  $trigger: 'the event the run started with',
  $vars: "the workflow's variables",
  $props: "the workflow's props",
  $workflow: 'id, version, organizationId',
  $run: 'id',
}

/** The fields of a node reference (`{{id.result}}` …), as the engine's node view has them. */
export const NODE_FIELDS = ['result', 'input', 'payload', 'status', 'error', 'branch']

/** A trigger's result is the event envelope `{ type, body, headers, receivedAt }`. */
const isTriggerSchema = (schema: unknown) => !!(schema as JsonSchema | undefined)?.properties?.receivedAt

/** The upstream node that is the trigger, when the scope can tell. */
export function triggerOf(scope: ExpressionScope): UpstreamNode | undefined {
  return scope.upstream.find((n) => n.id === 'root') ?? scope.upstream.find((n) => isTriggerSchema(n.resultSchema))
}

/** What a root holds in the last run: a value to walk, or undefined. */
export function rootValue(scope: ExpressionScope, root: string): unknown {
  const run = scope.lastRun
  if (!run) return undefined
  const event = run.triggerEvent ?? nodeResult(run, triggerOf(scope)?.id)
  if (root === '$trigger') return event
  if (root === 'root') return { ...nodeView(run.nodes[triggerOf(scope)?.id ?? '']), result: event }
  if (root === '$vars') return run.vars
  if (root === '$props') return run.props
  if (root === '$run') return { id: run.id }
  const node = run.nodes[root]
  return node ? nodeView(node) : undefined
}

const nodeResult = (run: LastRun, id: string | undefined) => (id ? run.nodes[id]?.result : undefined)

function nodeView(node: any): Record<string, unknown> {
  if (!node || typeof node !== 'object') return {}
  return {
    result: node.result,
    input: node.input,
    payload: node.input,
    status: node.status,
    error: node.error || null,
    branch: node.branch ?? null,
  }
}

/** The schema of what a root holds, when its node has a result schema. */
export function rootSchema(scope: ExpressionScope, root: string): JsonSchema | undefined {
  const node = root === 'root' || root === '$trigger' ? triggerOf(scope) : scope.upstream.find((n) => n.id === root)
  const result = node?.resultSchema as JsonSchema | undefined
  if (!result) return undefined
  if (root === '$trigger') return result
  return { type: 'object', properties: Object.fromEntries(NODE_FIELDS.map((f) => [f, f === 'result' ? result : {}])) }
}

/** Whether a name is a root this node can refer to. */
export function isKnownRoot(scope: ExpressionScope, root: string): boolean {
  return Object.hasOwn(FIXED_ROOTS, root) || scope.upstream.some((n) => n.id === root)
}

/** The keys one step below a value: an object's own keys, an array's indexes and length. */
export function keysOfValue(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return [...value.keys()].slice(0, 20).map(String).concat('length')
  if (typeof value === 'object' && value !== null) return Object.keys(value)
  return undefined
}

/** The schema one step below: a property, an array's items, or the first variant that has it. */
export function schemaStep(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  if (!schema) return undefined
  if (schema.properties && Object.hasOwn(schema.properties, key)) return schema.properties[key]
  if (schema.items && /^\d+$/.test(key)) return schema.items
  const variants: JsonSchema[] = schema.anyOf ?? schema.oneOf ?? []
  for (const variant of variants) {
    const found = schemaStep(variant, key)
    if (found) return found
  }
  return undefined
}

/** The keys one step below a schema; undefined when the schema does not say (any value). */
export function keysOfSchema(schema: JsonSchema | undefined): string[] | undefined {
  if (!schema) return undefined
  if (schema.properties) return Object.keys(schema.properties)
  if (schema.items) return ['0', 'length']
  const variants: JsonSchema[] = schema.anyOf ?? schema.oneOf ?? []
  const keys = variants.flatMap((v) => keysOfSchema(v) ?? [])
  return keys.length ? [...new Set(keys)] : undefined
}

/** Walks a value along keys; undefined as soon as the walk leaves it. */
export function walkValue(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const key of path) {
    if (current === undefined || current === null) return undefined
    if (Array.isArray(current) && key === 'length') current = current.length
    else if (typeof current === 'object' && Object.hasOwn(current, key))
      current = (current as Record<string, unknown>)[key]
    else return undefined
  }
  return current
}

export function walkSchema(schema: JsonSchema | undefined, path: readonly string[]): JsonSchema | undefined {
  let current = schema
  for (const key of path) current = schemaStep(current, key)
  return current
}
