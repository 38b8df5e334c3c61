/**
 * Connecting from the keyboard: with a node selected, `c` opens this dialog to choose the node
 * to connect to and the branch (output) to leave by; Enter connects, Escape closes.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { Entry } from './io.ts'
import { type Doc, isTrigger, LOOP } from './model.ts'

export interface ConnectProps {
  doc: Doc
  from: string
  catalog: Map<string, Entry>
  onConnect(to: string, branch?: string): void
  onCancel(): void
}

export function ConnectDialog({ doc, from, catalog, onConnect, onCancel }: ConnectProps) {
  const targets = Object.keys(doc.definition.nodes).filter((id) => id !== from && !isTrigger(doc, id))
  const entry = catalog.get(doc.definition.nodes[from].type)
  const branches = [...(entry?.branches ?? []), ...(entry?.loop ? [LOOP] : [])]
  const [to, setTo] = useState(targets[0] ?? '')
  const [branch, setBranch] = useState('')
  const first = useRef<HTMLSelectElement>(null)
  useEffect(() => first.current?.focus(), [])
  const submit = (event: Event) => {
    event.preventDefault()
    if (to) onConnect(to, branch || undefined)
  }
  return (
    // biome-ignore lint/a11y: Escape closes the dialog from any of its fields
    <form
      class="editor-bar connect"
      aria-label={`connect ${from}`}
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel()
        e.stopPropagation()
      }}
    >
      <label>
        Connect {from} to{' '}
        <select ref={first} data-testid="connect-target" value={to} onChange={(e) => setTo(e.currentTarget.value)}>
          {targets.map((id) => (
            <option value={id}>{id}</option>
          ))}
        </select>
      </label>
      {branches.length ? (
        <label>
          on{' '}
          <select data-testid="connect-branch" value={branch} onChange={(e) => setBranch(e.currentTarget.value)}>
            <option value="">(always)</option>
            {branches.map((b) => (
              <option value={b}>{b}</option>
            ))}
          </select>
        </label>
      ) : null}
      <button type="submit" data-testid="connect-ok">
        Connect
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  )
}
