/**
 * Structural checks of an `if` / `filter` condition, so that a definition is refused before it
 * runs: shape of `$and` / `$or` levels and items, known operators, operand kinds, and expression
 * syntax in keys and operands. It does not check what the expressions refer to.
 */
import { isOperator, CONDITION_OPS } from './condition-ops.ts'
import { isPlainObject, joinPointer } from './json.ts'
import { parseTemplate } from './parse-template.ts'
import { collectReferences, type PointedProblem } from './resolve.ts'

type Problems = PointedProblem[]

/** Operand kinds a literal operand must have; a string that is one whole expression is always accepted. */
const OPERAND_RULES: Readonly<Record<string, { test: (operand: unknown) => boolean; expects: string }>> = {
  $in: { test: Array.isArray, expects: 'an array' },
  $notIn: { test: Array.isArray, expects: 'an array' },
  $exists: { test: (operand) => typeof operand === 'boolean', expects: 'true or false' },
  $notExists: { test: (operand) => typeof operand === 'boolean', expects: 'true or false' },
  $gt: { test: isNumberOrString, expects: 'a number or a string' },
  $gte: { test: isNumberOrString, expects: 'a number or a string' },
  $lt: { test: isNumberOrString, expects: 'a number or a string' },
  $lte: { test: isNumberOrString, expects: 'a number or a string' },
  $startsWith: { test: isNumberOrString, expects: 'a string or a number' },
  $endsWith: { test: isNumberOrString, expects: 'a string or a number' },
  $contains: { test: (operand) => operand !== null, expects: 'a value (not null)' },
  $notContains: { test: (operand) => operand !== null, expects: 'a value (not null)' },
}

/** Every structural problem, each with a JSON pointer relative to the condition ('' is the condition itself). */
export function validateCondition(condition: unknown): Problems {
  const problems: Problems = []
  if (isPlainObject(condition) && isGroup(condition)) checkGroup(condition, '', problems)
  else problems.push({ pointer: '', message: 'a condition must be an object with "$and" or "$or" at the top level' })
  return problems
}

export function isGroup(value: Record<string, unknown>): boolean {
  return Object.hasOwn(value, '$and') || Object.hasOwn(value, '$or')
}

function checkGroup(group: Record<string, unknown>, pointer: string, problems: Problems): void {
  if (Object.hasOwn(group, '$and') && Object.hasOwn(group, '$or')) {
    problems.push({ pointer, message: 'one level cannot hold both "$and" and "$or"; nest one inside the other' })
    return
  }
  const op = Object.hasOwn(group, '$and') ? '$and' : '$or'
  for (const key of Object.keys(group)) {
    if (key !== op)
      problems.push({ pointer: joinPointer(pointer, key), message: `unexpected key "${key}" next to "${op}"` })
  }
  const items = group[op]
  const at = joinPointer(pointer, op)
  if (!Array.isArray(items)) {
    problems.push({ pointer: at, message: `"${op}" must be an array of conditions` })
    return
  }
  items.forEach((item, index) => checkItem(item, joinPointer(at, index), problems))
}

function checkItem(item: unknown, pointer: string, problems: Problems): void {
  if (!isPlainObject(item)) {
    problems.push({
      pointer,
      message: 'a condition item must be an object: { "<value>": { "<op>": <operand> } } or a nested "$and" / "$or"',
    })
    return
  }
  if (isGroup(item)) return checkGroup(item, pointer, problems)
  const keys = Object.keys(item)
  if (keys.length === 0) problems.push({ pointer, message: 'a condition item must name at least one value to test' })
  for (const key of keys) checkTest(key, item[key], joinPointer(pointer, key), problems)
}

function checkTest(key: string, ops: unknown, pointer: string, problems: Problems): void {
  const keyError = syntaxError(key)
  if (keyError !== undefined) problems.push({ pointer, message: `in key ${JSON.stringify(key)}: ${keyError}` })
  if (!isPlainObject(ops) || Object.keys(ops).length === 0) {
    problems.push({
      pointer,
      message: `expected an object of operators such as { "$eq": … } for ${JSON.stringify(key)}`,
    })
    return
  }
  for (const [op, operand] of Object.entries(ops)) checkOperator(op, operand, joinPointer(pointer, op), problems)
}

function checkOperator(op: string, operand: unknown, pointer: string, problems: Problems): void {
  if (!isOperator(op)) {
    problems.push({ pointer, message: `unknown operator "${op}"; expected one of ${CONDITION_OPS.join(' ')}` })
    return
  }
  const { errors } = collectReferences(operand)
  for (const error of errors) problems.push({ pointer: pointer + error.pointer, message: error.message })
  if (errors.length > 0 || isWholeExpression(operand)) return
  const rule = OPERAND_RULES[op]
  if (rule !== undefined && !rule.test(operand)) {
    problems.push({ pointer, message: `"${op}" expects ${rule.expects} or an expression, got ${describe(operand)}` })
  }
}

function syntaxError(text: string): string | undefined {
  const { errors } = collectReferences(text)
  return errors[0]?.message
}

function isWholeExpression(operand: unknown): boolean {
  return typeof operand === 'string' && parseTemplate(operand).kind === 'whole'
}

function isNumberOrString(operand: unknown): boolean {
  return typeof operand === 'number' || typeof operand === 'string'
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : JSON.stringify(value)
}
