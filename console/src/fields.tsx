/** The fields of the console's forms and filters: a label, the control, and the value it hands on. */
import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes } from 'preact'

/** A control's own attributes, with `onValue` told what the person typed or chose. */
type FieldProps<Attributes> = Omit<Attributes, 'onInput' | 'onChange'> & {
  label: string
  onValue: (value: string) => void
}

/** A labelled input; `onValue` hears every keystroke. */
export function TextField({ label, onValue, ...input }: FieldProps<InputHTMLAttributes<HTMLInputElement>>) {
  return (
    <label>
      {label} <input {...input} onInput={(e) => onValue(e.currentTarget.value)} />
    </label>
  )
}

/** A labelled select of the options given as children. */
export function SelectField({
  label,
  onValue,
  children,
  ...select
}: FieldProps<SelectHTMLAttributes<HTMLSelectElement>> & { children: ComponentChildren }) {
  return (
    <label>
      {label}{' '}
      <select {...select} onChange={(e) => onValue(e.currentTarget.value)}>
        {children}
      </select>
    </label>
  )
}

/** The status filter above a list; its first status, '', stands for any. */
export function StatusFilter({
  statuses,
  value,
  onValue,
}: {
  statuses: string[]
  value: string
  onValue: (status: string) => void
}) {
  return (
    <select value={value} onChange={(e) => onValue(e.currentTarget.value)} aria-label="status">
      {statuses.map((s) => (
        <option value={s}>{s || 'any status'}</option>
      ))}
    </select>
  )
}
