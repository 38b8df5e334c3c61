/**
 * The condition of `if` and `filter` as rows a form can edit: one `$and` or `$or` over
 * `{ "<left>": { "<$op>": operand } }` items. Nested groups are not rows: such a condition is
 * edited as JSON instead.
 */

export interface ConditionRow {
  left: string
  op: string
  operand: unknown
}

export interface ConditionRows {
  mode: '$and' | '$or'
  rows: ConditionRow[]
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The rows of a flat condition; undefined when it is nested or not a condition (edit it as JSON). */
export function conditionRows(value: unknown): ConditionRows | undefined {
  if (value === undefined) return { mode: '$and', rows: [] }
  if (!isObject(value)) return undefined
  const keys = Object.keys(value)
  if (keys.length !== 1 || (keys[0] !== '$and' && keys[0] !== '$or')) return undefined
  const items = value[keys[0]]
  if (!Array.isArray(items)) return undefined
  const rows: ConditionRow[] = []
  for (const item of items) {
    if (!isObject(item) || Object.keys(item).length !== 1) return undefined
    const [left] = Object.keys(item)
    const test = item[left]
    if (left.startsWith('$') || !isObject(test) || Object.keys(test).length !== 1) return undefined
    const [op] = Object.keys(test)
    rows.push({ left, op, operand: test[op] })
  }
  return { mode: keys[0] as '$and' | '$or', rows }
}

/** The condition the rows stand for. */
export function conditionOf(rows: ConditionRows): Record<string, unknown> {
  return { [rows.mode]: rows.rows.map((r) => ({ [r.left]: { [r.op]: r.operand } })) }
}

/** An operand as typed: JSON when it parses (numbers, booleans, lists), else the text itself. */
export function parseOperand(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** An operand as shown in its input. */
export const operandText = (operand: unknown): string =>
  typeof operand === 'string' && !/^(-?\d|true$|false$|null$|\[|\{|")/.test(operand)
    ? operand
    : operand === undefined
      ? ''
      : JSON.stringify(operand)
