/**
 * Fields made of fields: an object's properties in a fieldset, an array's items with add and
 * remove, and a union with a picker of its variants (picking one starts it with an empty value
 * of its shape).
 */
import { FieldView } from './field-view.tsx'
import { domId, type FormContext } from './form-context.ts'
import { childPointer, getAt } from './pointer.ts'
import { problemsOf } from './problems.ts'
import { emptyValue, type FieldModel, fieldOf, objectFields, variantFor, variantLabel } from './schema-model.ts'

/** A composite field's caption, with the switch that turns the whole value into an expression. */
function Legend({ field, toExpression }: { field: FieldModel; toExpression?: () => void }) {
  return (
    <>
      <legend>
        {field.label}
        {field.required ? ' *' : ''}
      </legend>
      {toExpression ? (
        <button type="button" class="link" onClick={toExpression} aria-label={`use an expression for ${field.label}`}>
          use an expression
        </button>
      ) : null}
    </>
  )
}

export interface CompositeProps {
  field: FieldModel
  ctx: FormContext
  toExpression?: () => void
}

function Problems({ field, ctx }: { field: FieldModel; ctx: FormContext }) {
  return (
    <>
      {problemsOf(field, ctx.problems).map((p) => (
        <p class="field-error" role="alert">
          {p.message}
        </p>
      ))}
    </>
  )
}

export function ObjectField({ field, ctx, toExpression }: CompositeProps) {
  return (
    <fieldset class="field object" data-testid={`field:${field.pointer}`}>
      <Legend field={field} toExpression={toExpression} />
      {field.description ? <p class="hint">{field.description}</p> : null}
      {objectFields(field.schema, field.pointer).map((child) => (
        <FieldView key={child.pointer} field={child} ctx={ctx} />
      ))}
      <Problems field={field} ctx={ctx} />
    </fieldset>
  )
}

export function ArrayField({ field, ctx, toExpression }: CompositeProps) {
  const value = getAt(ctx.node, field.pointer)
  const items = Array.isArray(value) ? value : []
  const itemSchema = field.schema.items ?? {}
  const add = () => ctx.onChange(field.pointer, [...items, emptyValue(itemSchema) ?? ''])
  const remove = (index: number) =>
    ctx.onChange(
      field.pointer,
      items.filter((_, i) => i !== index),
    )
  return (
    <fieldset class="field array" data-testid={`field:${field.pointer}`}>
      <Legend field={field} toExpression={toExpression} />
      {field.description ? <p class="hint">{field.description}</p> : null}
      {items.map((_, index) => {
        const item = fieldOf(itemSchema, childPointer(field.pointer, index), String(index), true)
        item.label = `${field.label} ${index + 1}`
        return (
          <div class="array-item" key={item.pointer}>
            <FieldView field={item} ctx={ctx} />
            <button type="button" class="link" onClick={() => remove(index)} aria-label={`remove ${item.label}`}>
              remove
            </button>
          </div>
        )
      })}
      <button
        type="button"
        onClick={add}
        disabled={field.schema.maxItems !== undefined && items.length >= field.schema.maxItems}
      >
        add {field.label.toLowerCase()}
      </button>
      <Problems field={field} ctx={ctx} />
    </fieldset>
  )
}

export function UnionField({ field, ctx, toExpression }: CompositeProps) {
  const variants = field.variants ?? []
  const value = getAt(ctx.node, field.pointer)
  const chosen = variantFor(variants, value)
  const pickerId = domId('variant', field.pointer)
  const inner = fieldOf(variants[chosen] ?? {}, field.pointer, field.key, field.required)
  inner.label = field.label
  return (
    // The chosen variant's field carries the pointer's test id; the fieldset does not repeat it.
    <fieldset class="field union">
      <Legend field={field} toExpression={toExpression} />
      {field.description ? <p class="hint">{field.description}</p> : null}
      <label for={pickerId}>kind of {field.label.toLowerCase()}</label>
      <select
        id={pickerId}
        data-testid={`variant:${field.pointer}`}
        value={value === undefined ? '' : String(chosen)}
        onChange={(e) => {
          const picked = (e.target as HTMLSelectElement).value
          ctx.onChange(field.pointer, picked === '' ? undefined : emptyValue(variants[Number(picked)]))
        }}
      >
        {field.required ? null : <option value="">— none —</option>}
        {variants.map((v, i) => (
          <option value={String(i)}>{variantLabel(v, i)}</option>
        ))}
      </select>
      {value === undefined || inner.kind === 'union' ? (
        <Problems field={field} ctx={ctx} />
      ) : (
        <FieldView field={inner} ctx={ctx} />
      )}
    </fieldset>
  )
}
