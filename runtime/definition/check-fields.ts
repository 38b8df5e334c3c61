/**
 * Warnings, not errors: a reference to a field that the upstream node's result schema does not
 * declare (`{{fetch.result.bdy}}`). Such a reference resolves to nothing at run time instead of
 * failing, so it is reported before running; a save is never refused for it. Only declared object
 * schemas are followed: an open object, a record, a union or `any` stops the check.
 */
import type { TSchema } from '@sinclair/typebox'
import type { Registry } from '../../core/plugin/registry.ts'
import type { PointedRef } from '../expressions/index.ts'
import type { Plan } from '../engine/plan.ts'
import type { AddProblem } from './check-structure.ts'

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/

/** The schema one step down a path, `null` when the schema declares no such field, undefined when it cannot tell. */
function stepInto(schema: TSchema, key: string): TSchema | null | undefined {
  if (schema.type === 'array' && ARRAY_INDEX.test(key)) return schema.items as TSchema | undefined
  if (schema.type !== 'object' || !schema.properties) return undefined
  const property = (schema.properties as Record<string, TSchema>)[key]
  if (property) return property
  const open = schema.additionalProperties !== undefined && schema.additionalProperties !== false
  return open || schema.patternProperties ? undefined : null
}

/** The first part of `path` that `schema` does not declare, if any. */
function undeclared(schema: TSchema, path: readonly string[]): string | undefined {
  let current: TSchema | undefined = schema
  for (const [i, key] of path.entries()) {
    const next = stepInto(current, key)
    if (next === null) return path.slice(0, i + 1).join('.')
    if (next === undefined) return undefined
    current = next
  }
  return undefined
}

/** Warns about each reference to a result field the referenced action's result schema does not declare. */
export function checkResultFields(
  registry: Registry,
  plan: Plan,
  upstream: ReadonlySet<string>,
  refs: readonly PointedRef[],
  at: string,
  warn: AddProblem,
): void {
  for (const ref of refs) {
    const path = ref.root === '$nodes' ? ref.path.slice(1) : ref.path
    const target = ref.root === '$nodes' ? ref.path[0] : ref.root
    if (!target || target.startsWith('$') || path[0] !== 'result' || path.length < 2) continue
    if (!upstream.has(target) || !plan.nodes.has(target) || plan.triggerIds.includes(target)) continue
    const def = plan.node(target).def
    const result = registry.action(def.type, def.typeVersion)?.result as TSchema | undefined
    const missing = result ? undeclared(result, path.slice(1)) : undefined
    if (missing)
      warn(
        `${at}${ref.pointer}`,
        `"${target}" (${def.type}) has no result field "${missing}": it would resolve to nothing`,
      )
  }
}
