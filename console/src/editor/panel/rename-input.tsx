/** The node's id, renamed on Enter or when the field is left; an id the engine refuses is not sent. */
import { useEffect, useRef, useState } from 'preact/hooks'

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/
const RESERVED = new Set(['__proto__', 'constructor', 'prototype'])

/** Why `id` cannot name a node, or undefined when it can. */
export function renameProblem(id: string): string | undefined {
  if (!NODE_ID.test(id)) return 'use 1 to 64 letters, digits, "_" or "-"'
  if (RESERVED.has(id)) return `"${id}" is reserved`
  return undefined
}

export function RenameInput({ nodeId, onRename }: { nodeId: string; onRename(newId: string): void }) {
  const [text, setText] = useState(nodeId)
  const [problem, setProblem] = useState<string>()
  // The id last sent: Enter and then leaving the field rename once.
  const sent = useRef(nodeId)
  useEffect(() => {
    setText(nodeId)
    setProblem(undefined)
  }, [nodeId])
  const commit = () => {
    if (text === nodeId || text === sent.current) return setProblem(undefined)
    const why = renameProblem(text)
    setProblem(why)
    if (why) return
    sent.current = text
    onRename(text)
  }
  return (
    <div class={`field${problem ? ' invalid' : ''}`}>
      <label for="node-rename">Node id</label>
      <input
        id="node-rename"
        data-testid="rename"
        value={text}
        aria-invalid={problem ? 'true' : 'false'}
        aria-describedby={problem ? 'node-rename-problem' : undefined}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit()
          if (e.key === 'Escape') setText(nodeId)
        }}
      />
      {problem ? (
        <p class="field-error" id="node-rename-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  )
}
