/**
 * The editor's test bar: a payload for a trigger, pinned as its sample (`pinnedData`, test data
 * only, marked as such and flagged when it no longer fits the trigger), "Run test" (the draft as a
 * test run, with the payload typed or else the pinned sample), and the run picker: which run the
 * canvas shows, the latest test run by default, production runs selectable too.
 */
import { useEffect, useState } from 'preact/hooks'
import { ErrorBox } from '../ui.tsx'
import type { Draft } from './draft.ts'
import { type Doc, isTrigger } from './model.ts'
import type { RunView } from './run-state.ts'
import { mountRunStyle } from './run-style.ts'

/** A payload as text: empty means none; anything else must be a JSON object. */
function parsePayload(text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return undefined
  const value = JSON.parse(text)
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('The payload is a JSON object, e.g. {"amount": 250}.')
  return value
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** A pinned sample larger than this (as JSON text) is not put in the payload box, only named. */
const EDITABLE_CHARS = 100_000

/** The chosen trigger (the first one until another is chosen) and the payload box's text, set from its sample. */
function usePayload(doc: Doc, pinnedData: Record<string, unknown>) {
  const triggers = Object.keys(doc.definition.nodes).filter((id) => isTrigger(doc, id))
  const [trigger, setTrigger] = useState(triggers[0] ?? '')
  const [text, setText] = useState('')
  const [pinnedSize, setPinnedSize] = useState(0)
  const pinned = pinnedData[trigger]
  useEffect(() => {
    if (!triggers.includes(trigger)) setTrigger(triggers[0] ?? '')
  }, [triggers.join('>')])
  useEffect(() => {
    const json = pinned === undefined ? '' : JSON.stringify(pinned)
    setPinnedSize(json.length)
    setText(json.length > EDITABLE_CHARS ? '' : json)
  }, [trigger, pinned])
  return { triggers, trigger, setTrigger, text, setText, pinned, pinnedSize }
}

/** Runs one action of the bar at a time, keeping its error. */
function useAction() {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const act = (work: () => Promise<void>) => async () => {
    setBusy(true)
    setError(null)
    try {
      await work()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return { error, busy, act }
}

export function TestBar({ draft, doc, runs }: { draft: Draft; doc: Doc; runs: RunView }) {
  mountRunStyle()
  const pinnedData: Record<string, unknown> = draft.workflow?.pinnedData ?? {}
  const box = usePayload(doc, pinnedData)
  const { trigger, text, pinned } = box
  const { error, busy, act } = useAction()
  const pin = act(async () => {
    const payload = parsePayload(text)
    const next = { ...pinnedData }
    if (payload === undefined) delete next[trigger]
    else next[trigger] = payload
    await draft.pin(next)
  })
  const runTest = act(async () => {
    const payload = parsePayload(text)
    await draft.saveIfDirty()
    // The pinned sample goes by itself: the server takes it when no payload is sent.
    await runs.startTest(payload === undefined || same(payload, pinned) ? undefined : payload)
  })
  return (
    <fieldset class="test-bar" aria-label="test while building">
      {box.triggers.length > 1 ? (
        <select
          aria-label="trigger"
          value={trigger}
          onChange={(e) => box.setTrigger((e.target as HTMLSelectElement).value)}
        >
          {box.triggers.map((id) => (
            <option value={id}>{id}</option>
          ))}
        </select>
      ) : null}
      <textarea
        data-testid="run-payload"
        aria-label={`payload for ${trigger || 'the trigger'} (JSON)`}
        placeholder='{"amount": 250}'
        value={text}
        onInput={(e) => box.setText((e.target as HTMLTextAreaElement).value)}
      />
      <button type="button" data-testid="pin-sample" onClick={pin} disabled={busy || !trigger}>
        {pinned === undefined ? 'Pin as sample' : text.trim() ? 'Pin again' : 'Unpin'}
      </button>
      {pinned !== undefined ? <PinnedMark trigger={trigger} size={box.pinnedSize} /> : null}
      <button type="button" data-testid="run-test" onClick={runTest} disabled={busy || !trigger}>
        Run test
      </button>
      <RunPicker runs={runs} />
      <PinnedProblems workflow={draft.workflow} trigger={trigger} />
      <ErrorBox error={error ?? runs.error} />
    </fieldset>
  )
}

function PinnedMark({ trigger, size }: { trigger: string; size: number }) {
  return (
    <span class="badge test-data" data-testid={`pinned:${trigger}`} title="Used by test runs only">
      pinned sample
      {size > EDITABLE_CHARS ? ` (${Math.round(size / 1024)} KB, runs without a payload use it)` : ''} · test data
    </span>
  )
}

/** The server's word that the trigger's sample no longer fits it (`pinnedDataProblems`). */
function PinnedProblems({ workflow, trigger }: { workflow: Record<string, any> | null; trigger: string }) {
  const problems = ((workflow?.pinnedDataProblems ?? []) as { path: string; message: string }[]).filter((p) =>
    p.path.startsWith(`/pinnedData/${trigger}`),
  )
  if (problems.length === 0) return null
  return (
    <p class="pinned-problems" role="alert" data-testid="pinned-problems">
      The pinned sample no longer fits: {problems.map((p) => p.message).join('; ')}
    </p>
  )
}

function RunPicker({ runs }: { runs: RunView }) {
  if (runs.runs.length === 0) return <span class="hint">no runs yet</span>
  return (
    <select
      data-testid="run-picker"
      aria-label="run shown on the canvas"
      onFocus={runs.refresh}
      value={runs.selected ?? ''}
      onChange={(e) => runs.select((e.target as HTMLSelectElement).value || null)}
    >
      <option value="">no run</option>
      {runs.runs.map((r) => (
        <option value={r.id}>
          {r.test ? 'test' : 'production'} · {r.status} · {new Date(r.startedAt).toLocaleTimeString()}
        </option>
      ))}
    </select>
  )
}
