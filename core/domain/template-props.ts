/**
 * Prop values of a fork, checked against the template's `templateProps`: every problem is one
 * detail at `/propValues/<key>` (or `/propValues/<key>/<column>/<row>` in a csvTable). A value
 * left out takes the prop's default. A csvTable value is stored as an object of column arrays;
 * it may be given so, or as an array of row objects.
 */
import type { ErrorDetail } from '../errors.ts'
import type { CsvColumn, TemplateProp } from './template.ts'
import { isSafeKey } from './workflow.ts'

const MAX_TEXT = 100_000

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'object'

function typeProblem(kind: Kind, value: unknown): string | null {
  switch (kind) {
    case 'string':
      return typeof value === 'string'
        ? value.length > MAX_TEXT
          ? `must be at most ${MAX_TEXT} characters`
          : null
        : 'must be a string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number'
    case 'integer':
      return Number.isSafeInteger(value) ? null : 'must be an integer'
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false'
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? null : 'must be an object'
  }
}

/** A compiled pattern, or null when the template's pattern is not a valid regular expression. */
function compile(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, 'u')
  } catch {
    return null
  }
}

interface Rules {
  enum?: unknown[]
  minimum?: number
  maximum?: number
  pattern?: string
}

function ruleProblem(rules: Rules, value: unknown): string | null {
  if (rules.enum && !rules.enum.some((e) => e === value))
    return `must be one of ${rules.enum.map((e) => JSON.stringify(e)).join(', ')}`
  if (typeof value === 'number') {
    if (rules.minimum !== undefined && value < rules.minimum) return `must be at least ${rules.minimum}`
    if (rules.maximum !== undefined && value > rules.maximum) return `must be at most ${rules.maximum}`
  }
  if (typeof value === 'string' && rules.pattern !== undefined) {
    const re = compile(rules.pattern)
    if (!re || !re.test(value)) return `must match ${rules.pattern}`
  }
  return null
}

const isCsvTable = (prop: TemplateProp) =>
  prop.properties?.inputType === 'csvTable' || (prop.properties?.columns?.length ?? 0) > 0

/** The problems of a template's props themselves (a pattern that is no regular expression, a duplicate key). */
export function checkTemplateProps(props: readonly TemplateProp[]): ErrorDetail[] {
  const errors: ErrorDetail[] = []
  const seen = new Set<string>()
  props.forEach((prop, i) => {
    if (seen.has(prop.key)) errors.push({ path: `/templateProps/${i}/key`, message: `duplicate prop key ${prop.key}` })
    seen.add(prop.key)
    if (prop.properties?.pattern !== undefined && !compile(prop.properties.pattern)) {
      errors.push({ path: `/templateProps/${i}/properties/pattern`, message: 'not a valid regular expression' })
    }
    for (const [j, column] of (prop.properties?.columns ?? []).entries()) {
      if (column.pattern !== undefined && !compile(column.pattern)) {
        errors.push({
          path: `/templateProps/${i}/properties/columns/${j}/pattern`,
          message: 'not a valid regular expression',
        })
      }
    }
  })
  return errors
}

/** Rows of a csvTable value as column arrays, or a problem. */
function columnsOf(
  value: unknown,
  columns: readonly CsvColumn[],
): { table: Record<string, unknown[]>; rows: number } | string {
  const table: Record<string, unknown[]> = Object.create(null)
  if (Array.isArray(value)) {
    for (const c of columns) table[c.key] = []
    for (const row of value) {
      if (row === null || typeof row !== 'object' || Array.isArray(row))
        return 'each row must be an object of column values'
      for (const c of columns) table[c.key].push((row as Record<string, unknown>)[c.key] ?? null)
    }
    return { table, rows: value.length }
  }
  if (value === null || typeof value !== 'object') return 'must be an object of column arrays (or an array of rows)'
  for (const key of Object.keys(value)) if (!columns.some((c) => c.key === key)) return `unknown column ${key}`
  // Columns left out are empty cells; the columns given must agree on the number of rows.
  let rows = -1
  for (const c of columns) {
    const column = (value as Record<string, unknown>)[c.key]
    if (column === undefined) continue
    if (!Array.isArray(column)) return `column ${c.key} must be an array`
    if (rows >= 0 && column.length !== rows) return 'every column must have the same number of rows'
    rows = column.length
  }
  rows = Math.max(rows, 0)
  for (const c of columns)
    table[c.key] = ((value as Record<string, unknown[]>)[c.key] ?? Array.from({ length: rows }, () => null)).slice()
  return { table, rows }
}

function checkTable(
  prop: TemplateProp,
  value: unknown,
  path: string,
  errors: ErrorDetail[],
): Record<string, unknown[]> | null {
  const columns = prop.properties?.columns ?? []
  const read = columnsOf(value, columns)
  if (typeof read === 'string') {
    errors.push({ path, message: read })
    return null
  }
  const minRows = prop.properties?.minRows || 1
  const maxRows = prop.properties?.maxRows ?? 0
  if (read.rows < minRows)
    errors.push({ path, message: `must have at least ${minRows} row${minRows === 1 ? '' : 's'}` })
  if (maxRows > 0 && read.rows > maxRows) errors.push({ path, message: `must have at most ${maxRows} rows` })
  for (const column of columns) {
    read.table[column.key].forEach((cell, row) => {
      const at = `${path}/${column.key}/${row}`
      if (cell === null || cell === undefined || cell === '') {
        if (column.required) errors.push({ path: at, message: 'required' })
        return
      }
      const problem = typeProblem((column.type ?? 'string') as Kind, cell) ?? ruleProblem(column, cell)
      if (problem) errors.push({ path: at, message: problem })
    })
  }
  return read.table
}

/** Checks and completes prop values; `errors` is empty when they may be stored. */
export function checkPropValues(
  props: readonly TemplateProp[],
  given: Record<string, unknown>,
): { values: Record<string, unknown>; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = []
  const values: Record<string, unknown> = Object.create(null)
  for (const key of Object.keys(given)) {
    if (!isSafeKey(key) || !props.some((p) => p.key === key))
      errors.push({ path: `/propValues/${key}`, message: 'not a prop of this template' })
  }
  for (const prop of props) {
    const path = `/propValues/${prop.key}`
    const value = Object.hasOwn(given, prop.key) ? given[prop.key] : prop.default
    if (value === undefined || value === null) {
      if (prop.required) errors.push({ path, message: 'required' })
      continue
    }
    if (isCsvTable(prop)) {
      const table = checkTable(prop, value, path, errors)
      if (table) values[prop.key] = { ...table }
      continue
    }
    const problem = typeProblem(prop.type as Kind, value) ?? ruleProblem(prop.properties ?? {}, value)
    if (problem) errors.push({ path, message: problem })
    else values[prop.key] = value
  }
  return { values: { ...values }, errors }
}
