/**
 * One field of the node form: its label, description, problems, the widget its schema needs, and
 * a toggle that turns any field into an expression (a `{{ … }}` string) and back. String fields
 * are expression editors from the start, with a preview of their value in the last run.
 */
import { useState } from 'preact/hooks'
import { ArrayField, type CompositeProps, ObjectField, UnionField } from './composite-fields.tsx'
import { ConditionField } from './condition-field.tsx'
import { DynamicOptions } from './dynamic-options.tsx'
import { ExpressionEditor } from './expression-editor.tsx'
import { domId, type FormContext } from './form-context.ts'
import { getAt } from './pointer.ts'
import { previewOf, previewText, referenceWarnings } from './preview.ts'
import { problemsOf } from './problems.ts'
import type { FieldModel } from './schema-model.ts'

const COMPOSITE = new Set(['object', 'array', 'union'])

export function FieldView({ field, ctx }: { field: FieldModel; ctx: FormContext }) {
  const value = getAt(ctx.node, field.pointer)
  const isText = field.kind === 'string' && !field.dynamic
  // A value of any type (`message` of `log`) is written as text, an expression or not, unless it is JSON.
  const anyValue = field.kind === 'json' && field.schema.type === undefined
  const [expression, setExpression] = useState(
    typeof value === 'string' ? anyValue || value.includes('{{') : anyValue && value === undefined,
  )
  if (COMPOSITE.has(field.kind) && !expression)
    return <CompositeField field={field} ctx={ctx} toExpression={() => setExpression(true)} />
  const labelId = domId('label', field.pointer)
  const problems = problemsOf(field, ctx.problems)
  const toggle = () => {
    // Text is no value of a typed field: leaving the expression clears it.
    if (expression && !anyValue && typeof value === 'string') ctx.onChange(field.pointer, undefined)
    setExpression(!expression)
  }
  return (
    <div class={`field${problems.length ? ' invalid' : ''}`} data-kind={field.kind}>
      <div class="field-head">
        <label id={labelId} for={domId('input', field.pointer)}>
          {field.label}
          {field.required ? ' *' : ''}
        </label>
        {isText ? null : (
          <button type="button" class="link" aria-pressed={expression} onClick={toggle}>
            {anyValue ? (expression ? 'write JSON' : 'write text') : expression ? 'use a value' : 'use an expression'}
          </button>
        )}
      </div>
      {field.description ? <p class="hint">{field.description}</p> : null}
      {isText || expression ? (
        <ExpressionField field={field} ctx={ctx} value={value} labelId={labelId} />
      ) : (
        <Widget field={field} ctx={ctx} value={value} />
      )}
      {problems.map((p) => (
        <p class="field-error" role="alert">
          {p.message}
        </p>
      ))}
    </div>
  )
}

/** Objects, arrays and unions are fieldsets of their own; any of them may be an expression too. */
function CompositeField(props: CompositeProps) {
  if (props.field.kind === 'object') return <ObjectField {...props} />
  if (props.field.kind === 'array') return <ArrayField {...props} />
  return <UnionField {...props} />
}

function ExpressionField(props: { field: FieldModel; ctx: FormContext; value: unknown; labelId: string }) {
  const { field, ctx } = props
  const text =
    typeof props.value === 'string' ? props.value : props.value === undefined ? '' : JSON.stringify(props.value)
  const preview = previewOf(text, ctx.scope)
  const warnings = referenceWarnings(text, ctx.scope)
  return (
    <>
      <ExpressionEditor
        value={text}
        onChange={(next) => ctx.onChange(field.pointer, next === '' && !field.required ? undefined : next)}
        scope={ctx.scope}
        labelledBy={props.labelId}
        inputId={domId('input', field.pointer)}
        testId={`field:${field.pointer}`}
        multiline={field.schema.maxLength === undefined || field.schema.maxLength > 200}
        placeholder={field.schema.default === undefined ? undefined : String(field.schema.default)}
      />
      {warnings.map((w) => (
        <p class="field-warning">{w}</p>
      ))}
      {preview.kind === 'plain' ? null : (
        <output class="preview" data-testid={`preview:${field.pointer}`}>
          {preview.kind === 'no-run'
            ? 'no run yet'
            : preview.kind === 'error'
              ? preview.message
              : previewText(preview.value)}
        </output>
      )}
    </>
  )
}

/** The input of a value that is not an expression. */
function Widget({ field, ctx, value }: { field: FieldModel; ctx: FormContext; value: unknown }) {
  const id = domId('input', field.pointer)
  const testId = `field:${field.pointer}`
  const set = (v: unknown) => ctx.onChange(field.pointer, v)
  if (field.dynamic) return <DynamicOptions field={field} ctx={ctx} value={value} inputId={id} />
  if (field.kind === 'boolean')
    return (
      <input
        id={id}
        data-testid={testId}
        type="checkbox"
        checked={value === true}
        onChange={(e) => set((e.target as HTMLInputElement).checked)}
      />
    )
  if (field.kind === 'enum') {
    const choices = field.choices ?? []
    const index = choices.indexOf(value)
    return (
      <select
        id={id}
        data-testid={testId}
        value={index < 0 ? '' : String(index)}
        onChange={(e) => {
          const picked = (e.target as HTMLSelectElement).value
          set(picked === '' ? undefined : choices[Number(picked)])
        }}
      >
        <option value="">—</option>
        {choices.map((c, i) => (
          <option value={String(i)}>{String(c)}</option>
        ))}
      </select>
    )
  }
  if (field.kind === 'number' || field.kind === 'integer')
    return (
      <input
        id={id}
        data-testid={testId}
        type="number"
        step={field.kind === 'integer' ? 1 : 'any'}
        min={field.schema.minimum}
        max={field.schema.maximum}
        value={typeof value === 'number' ? String(value) : ''}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value
          set(text.trim() === '' || Number.isNaN(Number(text)) ? undefined : Number(text))
        }}
      />
    )
  if (field.kind === 'condition') return <ConditionField field={field} ctx={ctx} value={value} inputId={id} />
  return <JsonField field={field} ctx={ctx} value={value} inputId={id} />
}

/** Any JSON value, written as JSON; text that does not parse is kept here until it does. */
export function JsonField(props: { field: FieldModel; ctx: FormContext; value: unknown; inputId: string }) {
  const shown = props.value === undefined ? '' : JSON.stringify(props.value, null, 2)
  const [draft, setDraft] = useState<{ text: string; error?: string } | null>(null)
  const onInput = (text: string) => {
    if (text.trim() === '') return (setDraft(null), props.ctx.onChange(props.field.pointer, undefined))
    try {
      const parsed = JSON.parse(text)
      setDraft(null)
      props.ctx.onChange(props.field.pointer, parsed)
    } catch (e) {
      setDraft({ text, error: `not JSON yet: ${(e as Error).message}` })
    }
  }
  return (
    <>
      <textarea
        id={props.inputId}
        data-testid={`field:${props.field.pointer}`}
        rows={4}
        value={draft?.text ?? shown}
        onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)}
      />
      {draft?.error ? <p class="field-warning">{draft.error}</p> : null}
    </>
  )
}
