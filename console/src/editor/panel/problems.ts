/**
 * Which validation problems a field shows: its own (the pointer is the field's), and for fields
 * edited as a whole (a condition, JSON) those inside it. The panel's summary lists the rest.
 */
import { getAt } from './pointer.ts'
import { type FieldModel, fieldOf, objectFields, variantFor } from './schema-model.ts'

export interface Problem {
  pointer: string
  message: string
}

const WHOLE: ReadonlySet<string> = new Set(['condition', 'json'])

/** The problems a field shows. */
export function problemsOf(field: Pick<FieldModel, 'pointer' | 'kind'>, problems: readonly Problem[]): Problem[] {
  return problems.filter(
    (p) => p.pointer === field.pointer || (WHOLE.has(field.kind) && p.pointer.startsWith(`${field.pointer}/`)),
  )
}

/** The fields the form shows for `node`, nested ones included (array items, the chosen variant). */
export function shownFields(fields: readonly FieldModel[], node: unknown): FieldModel[] {
  const out: FieldModel[] = []
  for (const field of fields) {
    out.push(field)
    const value = getAt(node, field.pointer)
    if (field.kind === 'object') out.push(...shownFields(objectFields(field.schema, field.pointer), node))
    if (field.kind === 'array' && Array.isArray(value) && field.schema.items) {
      const items = value.map((_, i) => fieldOf(field.schema.items, `${field.pointer}/${i}`, String(i), true))
      out.push(...shownFields(items, node))
    }
    if (field.kind === 'union' && field.variants) {
      const variant = field.variants[variantFor(field.variants, value)]
      const inner = fieldOf(variant, field.pointer, field.key, field.required)
      if (inner.kind !== 'union') out.push(...shownFields([inner], node).slice(1))
    }
  }
  return out
}

/** The problems no shown field claims: the summary at the top of the panel. */
export function otherProblems(fields: readonly FieldModel[], node: unknown, problems: readonly Problem[]): Problem[] {
  const shown = shownFields(fields, node)
  return problems.filter((p) => !shown.some((f) => problemsOf(f, [p]).length > 0))
}
