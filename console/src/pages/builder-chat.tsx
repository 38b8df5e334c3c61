/**
 * The AI builder chat beside a workflow: its history, and a turn streamed as it is written. A
 * definition the model proposes (and the checker accepted) becomes the workflow's draft; the
 * page then reads the workflow again.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, stream } from '../api.ts'
import { ErrorBox } from '../ui.tsx'

interface Line {
  role: 'user' | 'assistant'
  text: string
}

export function BuilderChat({ workflowId, onProposed }: { workflowId: string; onProposed: () => void }) {
  const [lines, setLines] = useState<Line[]>([])
  const [message, setMessage] = useState('')
  const [busy, setBusy] = useState(false)
  const [ready, setReady] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const conversation = useRef<string | undefined>(undefined)
  // A turn still streaming when the page goes away is stopped (it would go on spending credits).
  const turn = useRef<AbortController | null>(null)
  useEffect(() => () => turn.current?.abort(), [])

  useEffect(() => {
    api<Array<{ role: string; content: string; conversationId: string }>>(
      'GET',
      `/v1/ai/workflow/chat/history?workflowId=${encodeURIComponent(workflowId)}&limit=50`,
    )
      .then(
        (history) => {
          setLines(history.map((m): Line => ({ role: m.role === 'user' ? 'user' : 'assistant', text: m.content })))
          conversation.current = history.at(-1)?.conversationId || undefined
        },
        () => {},
      )
      // Nothing is sent before the history is in: a turn goes on after it, in the same conversation.
      .finally(() => setReady(true))
  }, [workflowId])

  const send = async (event: Event) => {
    event.preventDefault()
    if (!message.trim() || busy || !ready) return
    setError(null)
    setBusy(true)
    const said = message
    setMessage('')
    setLines((l) => [...l, { role: 'user', text: said }, { role: 'assistant', text: '' }])
    const append = (text: string) =>
      setLines((l) => {
        const last = l[l.length - 1]
        return last?.role === 'assistant'
          ? [...l.slice(0, -1), { role: 'assistant', text: last.text + text }]
          : [...l, { role: 'assistant', text }]
      })
    turn.current = new AbortController()
    try {
      await stream(
        'POST',
        '/v1/ai/workflow/chat',
        { message: said, workflowId, conversationId: conversation.current },
        turn.current.signal,
        (type, data) => {
          if (type === 'message.delta') append(data.text ?? '')
          else if (type === 'workflow.proposed') onProposed()
          else if (type === 'error') setError(new Error(data.message ?? 'the turn failed'))
          else if (type === 'done' && data.conversationId) conversation.current = data.conversationId
        },
      )
    } catch (e) {
      setLines((l) => (l[l.length - 1]?.role === 'assistant' && l[l.length - 1].text === '' ? l.slice(0, -1) : l))
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <aside class="card chat" aria-label="AI builder chat">
      <h2>Build with AI</h2>
      <ol class="chat-lines">
        {lines.map((line) => (
          <li class={`chat-${line.role}`}>{line.text || (busy ? '…' : '')}</li>
        ))}
      </ol>
      <ErrorBox error={error} />
      <form onSubmit={send}>
        <textarea
          name="chat-message"
          rows={3}
          placeholder="Say what the workflow should do, or what to change"
          value={message}
          onInput={(e) => setMessage((e.target as HTMLTextAreaElement).value)}
        />
        <button type="submit" disabled={busy || !ready}>
          {busy ? 'Working…' : 'Send'}
        </button>
      </form>
    </aside>
  )
}
