/**
 * A node's payload: its expressions resolved, its schema's defaults filled and the result
 * checked against the action's schema (and the same check for the arguments of a tool call).
 */
import type { TObject } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import '../../core/plugin/formats.ts'
import type { AnyAction } from '../../core/plugin/registry.ts'
import { type Lookup, resolveValue } from '../expressions/index.ts'

/** What a payload check needs of an action, worked out once per action (and version). */
export interface PayloadRules {
  readonly check: TypeCheck<TObject>
  readonly keep: ReadonlySet<string>
  /** Whether the schema declares any default; if not, filling defaults is a no-op to skip. */
  readonly defaults: boolean
}

/** The payload rules of each action (each version of a type has its own), compiled the first time they are asked for. */
export function payloadRules(): (action: AnyAction) => PayloadRules {
  const rules = new WeakMap<AnyAction, PayloadRules>()
  return (action) => {
    let found = rules.get(action)
    if (!found) {
      found = {
        check: TypeCompiler.Compile(action.payload),
        keep: new Set(action.raw ?? []),
        defaults: declaresDefault(action.payload),
      }
      rules.set(action, found)
    }
    return found
  }
}

/** The payload a node's handler gets; throws when it does not match the action's schema. */
export function resolvePayload(
  rules: PayloadRules,
  action: AnyAction,
  raw: Record<string, unknown>,
  lookup: Lookup,
): Record<string, unknown> {
  const { check, keep, defaults } = rules
  const resolved: Record<string, unknown> = {}
  for (const k in raw) if (Object.hasOwn(raw, k)) resolved[k] = keep.has(k) ? raw[k] : resolveValue(raw[k], lookup)
  const withDefaults = defaults ? (Value.Default(action.payload, resolved) as Record<string, unknown>) : resolved
  if (!check.Check(withDefaults)) {
    const problems = [...check.Errors(withDefaults)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`)
    throw new Error(`the payload does not match the action's schema (${problems.join('; ')})`)
  }
  return withDefaults
}

/** A tool call's arguments with their defaults; throws when they do not fit the tool's schema. */
export function toolPayload(
  rules: PayloadRules,
  tool: AnyAction,
  type: string,
  args: unknown,
): Record<string, unknown> {
  const { check } = rules
  const payload = Value.Default(tool.payload, structuredClone(args ?? {})) as Record<string, unknown>
  if (!check.Check(payload)) {
    const problems = [...check.Errors(payload)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`)
    throw new Error(`the arguments do not fit tool "${type}" (${problems.join('; ')})`)
  }
  return payload
}

/** Whether a schema, or any schema inside it, has a `default` (a value or a function). */
function declaresDefault(schema: unknown, seen = new Set<unknown>()): boolean {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return false
  seen.add(schema)
  if (!Array.isArray(schema) && Object.hasOwn(schema, 'default')) return true
  return Object.values(schema).some((value) => declaresDefault(value, seen))
}
