/**
 * The condition of `if` and `filter` as rows: the value to test (an expression editor with
 * completion), the operator and the operand, all of them (`$and`) or any (`$or`). A condition
 * with nested groups is edited as JSON.
 */
import { CONDITION_OPS } from '../../../../runtime/expressions/index.ts'
import { type ConditionRows, conditionOf, conditionRows, operandText, parseOperand } from './condition-model.ts'
import { ExpressionEditor } from './expression-editor.tsx'
import { JsonField } from './field-view.tsx'
import { domId, type FormContext } from './form-context.ts'
import type { FieldModel } from './schema-model.ts'

interface Props {
  field: FieldModel
  ctx: FormContext
  value: unknown
  inputId: string
}

export function ConditionField(props: Props) {
  const rows = conditionRows(props.value)
  if (!rows) return <JsonField {...props} />
  const { field, ctx } = props
  const write = (next: ConditionRows) => ctx.onChange(field.pointer, conditionOf(next))
  const change = (index: number, patch: Partial<ConditionRows['rows'][number]>) =>
    write({ ...rows, rows: rows.rows.map((r, i) => (i === index ? { ...r, ...patch } : r)) })
  const modeId = domId('mode', field.pointer)
  return (
    <div class="condition" id={props.inputId} data-testid={`field:${field.pointer}`}>
      <label for={modeId}>passes when</label>
      <select
        id={modeId}
        data-testid={`condition-mode:${field.pointer}`}
        value={rows.mode}
        onChange={(e) => write({ ...rows, mode: (e.target as HTMLSelectElement).value as '$and' | '$or' })}
      >
        <option value="$and">all of these hold</option>
        <option value="$or">any of these holds</option>
      </select>
      {rows.rows.map((row, index) => (
        <Row key={index} pointer={`${field.pointer}/${index}`} row={row} ctx={ctx} change={(p) => change(index, p)}>
          <button
            type="button"
            class="link"
            aria-label={`remove test ${index + 1}`}
            onClick={() => write({ ...rows, rows: rows.rows.filter((_, i) => i !== index) })}
          >
            remove
          </button>
        </Row>
      ))}
      <button
        type="button"
        data-testid={`condition-add:${field.pointer}`}
        onClick={() => write({ ...rows, rows: [...rows.rows, { left: '', op: '$eq', operand: '' }] })}
      >
        add a test
      </button>
    </div>
  )
}

/** One test; its parts' test ids are `condition:<pointer>/<index>/left|op|operand`. */
function Row(props: {
  pointer: string
  row: ConditionRows['rows'][number]
  ctx: FormContext
  change(patch: Partial<ConditionRows['rows'][number]>): void
  children: preact.ComponentChildren
}) {
  const { pointer, row } = props
  const ids = { left: domId('left', pointer), op: domId('op', pointer), operand: domId('operand', pointer) }
  return (
    <div class="condition-row">
      <span class="sr-label" id={ids.left}>
        value to test
      </span>
      <ExpressionEditor
        value={row.left}
        onChange={(left) => props.change({ left })}
        scope={props.ctx.scope}
        labelledBy={ids.left}
        inputId={`${ids.left}-input`}
        testId={`condition:${pointer}/left`}
        placeholder="{{root.result.body.amount}}"
      />
      <label for={ids.op} class="sr-label">
        operator
      </label>
      <select
        id={ids.op}
        data-testid={`condition:${pointer}/op`}
        value={row.op}
        onChange={(e) => props.change({ op: (e.target as HTMLSelectElement).value })}
      >
        {CONDITION_OPS.map((op) => (
          <option value={op}>{op.slice(1)}</option>
        ))}
      </select>
      <label for={ids.operand} class="sr-label">
        operand
      </label>
      <input
        id={ids.operand}
        data-testid={`condition:${pointer}/operand`}
        value={operandText(row.operand)}
        onInput={(e) => props.change({ operand: parseOperand((e.target as HTMLInputElement).value) })}
      />
      {props.children}
    </div>
  )
}
