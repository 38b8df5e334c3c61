/**
 * A workflow's flow control settings (`flowControl`, kept with each version): concurrency,
 * throttle, rate limit, debounce and priority, each switched on by its box. Saving writes the
 * draft (`PUT /v1/workflows/{id}`); the service checks what it gets and its 400 is shown as is.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { ErrorBox, useAction } from '../ui.tsx'

type Rule = 'concurrency' | 'throttle' | 'rateLimit' | 'debounce'
/** The form's fields as typed: every value a string, as inputs hold them. */
type Fields = Record<string, string>

/** A field of a rule: its name in `flowControl`, its label, and whether it is a number. */
type Field = readonly [string, string, 'number' | 'text']

/** The fields the rules have in common. */
const KEY: Field = ['key', 'Key', 'text']
const LIMIT: Field = ['limit', 'Limit', 'number']
const PERIOD: Field = ['periodMs', 'Period (ms)', 'number']

/** The fields each rule has. */
const RULES: readonly { rule: Rule; title: string; fields: readonly Field[] }[] = [
  {
    rule: 'concurrency',
    title: 'Concurrency: at most this many runs per key at once',
    fields: [['key', 'Key (a template, empty: one shared key)', 'text'], LIMIT],
  },
  {
    rule: 'throttle',
    title: 'Throttle: at most this many starts per period; the rest wait',
    fields: [KEY, LIMIT, PERIOD, ['burst', 'Burst (empty: the limit)', 'number']],
  },
  {
    rule: 'rateLimit',
    title: 'Rate limit: at most this many per period; the rest are refused (429)',
    fields: [KEY, LIMIT, PERIOD],
  },
  {
    rule: 'debounce',
    title: 'Debounce: start once events stop for the period, with the latest one',
    fields: [KEY, PERIOD, ['maxWaitMs', 'Longest wait (ms, empty: none)', 'number']],
  },
]

/** The form's fields of a stored flow control. */
function fieldsOf(fc: Record<string, any> | null): Fields {
  const fields: Fields = { priority: fc?.priority === undefined ? '' : String(fc.priority) }
  for (const { rule, fields: names } of RULES) {
    fields[rule] = fc?.[rule] ? 'on' : ''
    for (const [name] of names)
      fields[`${rule}.${name}`] = fc?.[rule]?.[name] === undefined ? '' : String(fc[rule][name])
  }
  fields['concurrency.onLimit'] = fc?.concurrency?.onLimit ?? 'queue'
  return fields
}

/** The flow control the fields give (null: none); numbers are sent as typed, for the service to check. */
function flowControlOf(fields: Fields): Record<string, unknown> | null {
  const fc: Record<string, unknown> = {}
  for (const { rule, fields: names } of RULES) {
    if (!fields[rule]) continue
    const part: Record<string, unknown> = {}
    for (const [name, , kind] of names) {
      const value = fields[`${rule}.${name}`].trim()
      if (value !== '') part[name] = kind === 'number' && /^-?\d+$/.test(value) ? Number(value) : value
    }
    if (rule === 'concurrency') part.onLimit = fields['concurrency.onLimit']
    fc[rule] = part
  }
  const priority = fields.priority.trim()
  if (priority !== '') fc.priority = /^-?\d+$/.test(priority) ? Number(priority) : priority
  return Object.keys(fc).length > 0 ? fc : null
}

/** JSON with every object's keys in order, so that rules read back compare equal to those sent. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  )
}

export function FlowControlSettings({
  id,
  flowControl,
  onSaved,
}: {
  id: string
  flowControl: Record<string, any> | null
  onSaved?: () => void
}) {
  const [fields, setFields] = useState<Fields>(() => fieldsOf(flowControl))
  const [saved, setSaved] = useState(false)
  const { error, run } = useAction()
  // The rules this form saved last: the workflow read again after the save brings them back, and
  // must not undo what was typed meanwhile. Rules changed elsewhere replace the form's.
  const savedRules = useRef<string | null>(null)
  const shown = canonical(flowControl)
  // The rules the fields were last filled from: the effect runs after the first paint too, when
  // someone may already have typed, and must then leave the fields alone.
  const filledFrom = useRef(shown)
  useEffect(() => {
    if (shown === filledFrom.current) return
    filledFrom.current = shown
    if (shown !== savedRules.current) setFields(fieldsOf(flowControl))
  }, [shown])
  const set = (name: string) => (e: Event) => {
    const input = e.target as HTMLInputElement
    const value = input.type === 'checkbox' ? (input.checked ? 'on' : '') : input.value
    setFields((current) => ({ ...current, [name]: value }))
    setSaved(false)
  }
  const save = async (e: Event) => {
    e.preventDefault()
    await run(async () => {
      const rules = flowControlOf(fields)
      await api('PUT', `/v1/workflows/${id}`, { flowControl: rules })
      savedRules.current = canonical(rules)
      setSaved(true)
      onSaved?.()
    })
  }
  return (
    <section data-testid="flow-control">
      <h2>Flow control</h2>
      <p class="hint">
        Applies to triggers and API runs of the published version; editor test runs are not held. Keys and the priority
        are templates over the trigger's data, e.g. <code>{'{{root.result.body.customerId}}'}</code>.
      </p>
      <ErrorBox error={error} />
      <form class="card" onSubmit={save}>
        {RULES.map(({ rule, title, fields: names }) => (
          <fieldset data-rule={rule}>
            <legend>
              <label>
                <input type="checkbox" name={rule} checked={!!fields[rule]} onChange={set(rule)} /> {title}
              </label>
            </legend>
            {fields[rule]
              ? names.map(([name, label, kind]) => (
                  <label>
                    {label}
                    <input
                      name={`${rule}.${name}`}
                      inputMode={kind === 'number' ? 'numeric' : undefined}
                      value={fields[`${rule}.${name}`]}
                      onInput={set(`${rule}.${name}`)}
                    />
                  </label>
                ))
              : null}
            {rule === 'concurrency' && fields[rule] ? (
              <label>
                When at the limit
                <select
                  name="concurrency.onLimit"
                  value={fields['concurrency.onLimit']}
                  onChange={set('concurrency.onLimit')}
                >
                  <option value="queue">queue (wait in order)</option>
                  <option value="skip">skip the new run</option>
                  <option value="cancel-in-progress">cancel the running one</option>
                </select>
              </label>
            ) : null}
          </fieldset>
        ))}
        <label>
          Priority (−100 to 100, or a template; empty: 0)
          <input name="priority" value={fields.priority} onInput={set('priority')} />
        </label>
        <button type="submit">Save flow control</button>
        {saved ? <span role="status"> Saved to the draft; publish to apply it.</span> : null}
      </form>
    </section>
  )
}
