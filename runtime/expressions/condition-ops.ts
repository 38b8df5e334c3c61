/**
 * The operators of `if` and `filter` conditions, each a pure function of the left value and the
 * (already resolved) operand. Semantics are documented in conditions.ts. Operators never throw: an
 * operand of the wrong kind makes the test false (and its negation true).
 */
import { compareOrder, looseEqual } from './compare.ts'
import { stringifyValue } from './evaluate.ts'

export type Operator = (left: unknown, operand: unknown) => boolean

export const OPERATORS: Readonly<Record<string, Operator>> = Object.freeze({
  $eq: looseEqual,
  $ne: (left, operand) => !looseEqual(left, operand),
  $gt: ordered((order) => order > 0),
  $gte: ordered((order) => order >= 0),
  $lt: ordered((order) => order < 0),
  $lte: ordered((order) => order <= 0),
  $contains: contains,
  $notContains: (left, operand) => !contains(left, operand),
  $startsWith: (left, operand) => affix(left, operand, (text, part) => text.startsWith(part)),
  $endsWith: (left, operand) => affix(left, operand, (text, part) => text.endsWith(part)),
  $exists: exists,
  $notExists: (left, operand) => !exists(left, operand),
  $in: isIn,
  $notIn: (left, operand) => !isIn(left, operand),
} satisfies Record<string, Operator>)

export const CONDITION_OPS: readonly string[] = Object.freeze(Object.keys(OPERATORS))

export function isOperator(name: string): boolean {
  return Object.hasOwn(OPERATORS, name)
}

function ordered(test: (order: number) => boolean): Operator {
  return (left, operand) => {
    const order = compareOrder(left, operand)
    return order !== undefined && test(order)
  }
}

function contains(left: unknown, operand: unknown): boolean {
  if (operand === undefined || operand === null) return false
  if (typeof left === 'string') return left.includes(stringifyValue(operand))
  if (Array.isArray(left)) return left.some((entry) => looseEqual(entry, operand))
  return false
}

function affix(left: unknown, operand: unknown, test: (text: string, part: string) => boolean): boolean {
  const text = asText(left)
  const part = asText(operand)
  return text !== undefined && part !== undefined && test(text, part)
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  return typeof value === 'number' ? String(value) : undefined
}

/** `{ "$exists": false }` (or a "false" rendered by an expression) asks for a missing value. */
function exists(left: unknown, operand: unknown): boolean {
  const wanted = operand !== false && operand !== 'false'
  return (left !== undefined && left !== null) === wanted
}

function isIn(left: unknown, operand: unknown): boolean {
  return Array.isArray(operand) && operand.some((entry) => looseEqual(left, entry))
}
