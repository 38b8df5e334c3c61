/**
 * Conditions of the `if` and `filter` nodes:
 *
 *   { "$and" | "$or": [ item, … ] }    item = a nested { "$and" | "$or": […] }
 *                                            or { "<value>": { "<op>": <operand>, … }, … }
 *
 * Several keys in one item, and several operators under one key, are ANDed. Empty `$and` is true,
 * empty `$or` is false.
 *
 * The left value is the key: a key that is exactly one expression keeps its value's type
 * (`"{{order.total}}"` → 150); a key with embedded expressions renders to a string; a plain key is
 * that literal string. Operands are resolved the same way, deeply (`$in: ["{{a}}", 2]`).
 * Evaluate the raw condition, not one passed through resolveValue: that stringifies keys.
 *
 * - `$eq` / `$ne`: deep equality; at the top level a number equals its numeric string (150 = "150"),
 *   a boolean its "true"/"false", and undefined equals null (a missing field `$eq: null`).
 * - `$gt` `$gte` `$lt` `$lte`: numbers, numeric strings coerced; two strings that are not both
 *   numeric compare by code unit; anything else (null, undefined, booleans, objects) is false.
 * - `$contains` / `$notContains`: a string contains the operand's text (objects as JSON); an array
 *   contains an element `$eq` to the operand; anything else, or a null operand, does not contain.
 * - `$startsWith` / `$endsWith`: strings, a number on either side taken as its decimal text; else false.
 * - `$exists`: not undefined and not null; `{ "$exists": false }` inverts. `$notExists` is the inverse.
 * - `$in` / `$notIn`: membership in the operand array with `$eq` semantics; a non-array operand
 *   (from an expression) is in nothing.
 * Every negative operator is exactly the negation of its positive.
 *
 * evaluateCondition refuses (throws ConditionError) what validateCondition reports, so a broken
 * condition fails its node instead of silently choosing a branch. It does not check references.
 */
import { OPERATORS } from './condition-ops.ts'
import { renderTemplate } from './evaluate.ts'
import { parseTemplate } from './parse-template.ts'
import { resolveValue, type PointedProblem } from './resolve.ts'
import type { Lookup } from './types.ts'
import { isGroup, validateCondition } from './validate-condition.ts'

export { CONDITION_OPS } from './condition-ops.ts'
export { validateCondition } from './validate-condition.ts'

/** A condition that validateCondition rejects; `problems` lists every one of them. */
export class ConditionError extends Error {
  constructor(readonly problems: readonly PointedProblem[]) {
    const [first] = problems
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
    super(`invalid condition at "${first?.pointer ?? ''}": ${first?.message ?? 'unknown problem'}${more}`)
    this.name = 'ConditionError'
  }
}

/** True when the condition holds; throws ConditionError when it is malformed. */
export function evaluateCondition(condition: unknown, lookup: Lookup): boolean {
  if (!validated.has(condition as object)) {
    const problems = validateCondition(condition)
    if (problems.length > 0) throw new ConditionError(problems)
    if (condition && typeof condition === 'object') validated.add(condition)
  }
  return evaluateGroup(condition as Record<string, unknown>, lookup)
}

/**
 * Conditions found valid. An `if` node hands over the same condition object of its definition
 * on every run (its payload is kept raw), so it is checked once, not once per run. Definitions
 * are never changed in place; a changed workflow brings new objects.
 */
const validated = new WeakSet<object>()

function evaluateGroup(group: Record<string, unknown>, lookup: Lookup): boolean {
  if (Object.hasOwn(group, '$and')) return (group.$and as unknown[]).every((item) => evaluateItem(item, lookup))
  return (group.$or as unknown[]).some((item) => evaluateItem(item, lookup))
}

function evaluateItem(item: unknown, lookup: Lookup): boolean {
  const entries = item as Record<string, unknown>
  if (isGroup(entries)) return evaluateGroup(entries, lookup)
  return Object.entries(entries).every(([key, ops]) => evaluateTest(key, ops as Record<string, unknown>, lookup))
}

function evaluateTest(key: string, ops: Record<string, unknown>, lookup: Lookup): boolean {
  const left = renderTemplate(parseTemplate(key), lookup)
  return Object.entries(ops).every(([op, operand]) => OPERATORS[op](left, resolveValue(operand, lookup)))
}
