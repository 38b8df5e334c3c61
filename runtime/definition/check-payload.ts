/**
 * The payload checks of one node: its schema (an expression may stand for any value), a
 * trigger's own semantic check, raw condition fields, the target of a `wait` node, and the
 * expressions it holds (check-references.ts).
 */
import type { TypeCheck } from '@sinclair/typebox/compiler'
import type { TObject, TSchema } from '@sinclair/typebox'
import type { Registry } from '../../core/plugin/registry.ts'
import { collectReferences, hasExpression, validateCondition } from '../expressions/index.ts'
import type { Plan } from '../engine/plan.ts'
import { checkResultFields } from './check-fields.ts'
import { checkReferences } from './check-references.ts'
import type { AddProblem } from './check-structure.ts'

/** What the payload checks share: the plugins, the compiled schemas, and where problems go. */
export interface PayloadCheckDeps {
  readonly registry: Registry
  /** The compiled check of a schema, by a key naming it (compiled once per checker). */
  compiled(key: string, schema: TSchema): TypeCheck<TSchema>
  readonly add: AddProblem
  /** Where warnings go (references to result fields not declared); none: not collected. */
  readonly warn?: AddProblem
}

export function checkPayload(deps: PayloadCheckDeps, plan: Plan, id: string): void {
  const { registry, add } = deps
  const node = plan.node(id)
  const at = `/nodes/${id}/payload`
  const payload = node.def.payload ?? {}
  const isTrigger = plan.triggerIds.includes(id)
  const version = node.def.typeVersion
  const action = isTrigger ? undefined : registry.action(node.type, version)
  const schema = (isTrigger ? registry.trigger(node.type, version)?.payload : action?.payload) as TObject | undefined
  const raw = new Set<string>(action?.raw ?? [])
  if (schema) checkSchema(deps, { type: node.type, version, isTrigger, schema, payload, raw, at })
  if (action?.type === 'wait') checkWaitTarget(deps, payload, at)
  const { refs, errors } = collectReferences(payload)
  for (const e of errors) add(`${at}${e.pointer}`, e.message)
  checkReferences(plan, node, refs, raw, at, add)
  if (deps.warn) checkResultFields(registry, plan, plan.ancestors(id), refs, at, deps.warn)
}

interface SchemaCheck {
  type: string
  /** The node's version of its type (the latest when undefined). */
  version: number | undefined
  isTrigger: boolean
  schema: TObject
  payload: Record<string, unknown>
  /** Fields the engine reads unresolved (conditions); their schema errors are not the payload's. */
  raw: ReadonlySet<string>
  at: string
}

function checkSchema(deps: PayloadCheckDeps, check: SchemaCheck): void {
  const { type, version, isTrigger, schema, payload, raw, at } = check
  const { add } = deps
  const validator = deps.compiled(`${isTrigger ? 'trigger' : 'action'}:${type}@${version ?? 'latest'}`, schema)
  if (isTrigger && validator.Check(payload)) checkSemantics(deps, type, version, payload, at)
  for (const e of validator.Errors(payload)) {
    const value = valueAt(payload, e.path)
    if (typeof value === 'string' && hasExpression(value)) continue // resolved and checked at run time
    if (raw.has(e.path.split('/')[1] ?? '')) continue
    add(`${at}${e.path}`, e.message)
  }
  for (const field of raw) {
    const property = (schema.properties as Record<string, TSchema>)[field]
    if (property?.['x-automaton'] === 'condition' && payload[field] !== undefined) {
      for (const p of validateCondition(payload[field])) add(`${at}/${field}${p.pointer}`, p.message)
    }
  }
}

/** A `wait` node on a trigger type: the type must take waits, and what it matches on fits its wait schema. */
function checkWaitTarget(deps: PayloadCheckDeps, payload: Record<string, unknown>, at: string): void {
  const { add } = deps
  const type = payload.triggerType
  if (typeof type !== 'string' || hasExpression(type)) return
  const trigger = deps.registry.trigger(type)
  if (!trigger) return add(`${at}/triggerType`, `unknown trigger type "${type}"`)
  if (trigger.schedule)
    return add(
      `${at}/triggerType`,
      `"${type}" fires on a schedule and cannot be waited for; use a delay node to wait for a time`,
    )
  if (!trigger.waitPayload)
    return add(`${at}/triggerType`, `"${type}" cannot be waited for; leave triggerType out to wait for a resume call`)
  const config = payload.triggerConfig
  if (!config || typeof config !== 'object') return
  for (const e of deps.compiled(`wait:${type}`, trigger.waitPayload).Errors(config)) {
    const value = valueAt(config as Record<string, unknown>, e.path)
    if (typeof value === 'string' && hasExpression(value)) continue
    add(`${at}/triggerConfig${e.path}`, e.message)
  }
}

/** A trigger's own check of a payload that matches its schema (a cron expression's syntax). */
function checkSemantics(
  deps: PayloadCheckDeps,
  type: string,
  version: number | undefined,
  payload: unknown,
  at: string,
): void {
  const validate = deps.registry.trigger(type, version)?.validate
  if (!validate) return
  try {
    for (const problem of validate(payload as never)) deps.add(`${at}${problem.path ?? ''}`, problem.message)
  } catch (error) {
    deps.add(at, `is invalid: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function valueAt(value: unknown, pointer: string): unknown {
  let current = value
  for (const part of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return current
}
