/**
 * The draft against the live version: which nodes the draft adds, removes and changes. Drawn on
 * the canvas when asked (a mark on each added or changed node, the removed ones as ghosts where
 * the live version had them), and listed before publishing.
 */
import { ViewportPortal } from '@xyflow/react'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { layout, NODE_H, NODE_W } from './layout.ts'
import { type Change, type Diff, diffOf, isEmpty } from './diff-of.ts'
import type { Doc } from './model.ts'

const Portal = ViewportPortal as any

/** The live version as a document, null when the workflow has none (never published, or archived). */
export function useLive(workflowId: string, refresh: unknown): Doc | null {
  const [live, setLive] = useState<Doc | null>(null)
  useEffect(() => {
    let current = true
    readLive(workflowId).then(
      (doc) => current && setLive(doc),
      () => current && setLive(null),
    )
    return () => {
      current = false
    }
  }, [workflowId, refresh])
  return live
}

/** Asks whether there is a live version first, so that a workflow never published costs no failed request. */
async function readLive(workflowId: string): Promise<Doc | null> {
  const workflow = await api<Record<string, any>>('GET', `/v1/workflows/${workflowId}`)
  if (!workflow.hasLiveVersion) return null
  const w = await api<Record<string, any>>('GET', `/v1/workflows/${workflowId}/live`)
  return { definition: { nodes: {}, ...w.definition }, uiMetadata: structuredClone(w.uiMetadata ?? {}) }
}

/** The marks on the canvas: added and changed nodes where the draft draws them, removed ones where the live version did. */
export function DiffLayer({ doc, live, diff }: { doc: Doc; live: Doc; diff: Diff }) {
  const now = layout(doc)
  const then = layout(live)
  const marks: [string, Change, { x: number; y: number }][] = [
    ...diff.added.map((id) => [id, 'added', now[id]] as [string, Change, { x: number; y: number }]),
    ...diff.changed.map((id) => [id, 'changed', now[id]] as [string, Change, { x: number; y: number }]),
    ...diff.removed.map((id) => [id, 'removed', then[id]] as [string, Change, { x: number; y: number }]),
  ]
  return (
    <Portal>
      {marks.map(([id, change, at]) => (
        <div
          key={`${change}:${id}`}
          class={`diff-mark ${change}`}
          data-testid={`diff:${id}`}
          data-change={change}
          style={{ transform: `translate(${at.x - 4}px, ${at.y - 4}px)`, width: NODE_W + 8, height: NODE_H + 8 }}
        >
          <span class="diff-label">{change === 'removed' ? `${id} removed` : change}</span>
        </div>
      ))}
    </Portal>
  )
}

/** The diff as a list, shown on the canvas's bar and in the publish confirmation. */
export function DiffSummary({ diff, testid }: { diff: Diff | null; testid: string }) {
  if (!diff) return <p data-testid={testid}>Nothing is live yet: publishing makes the whole draft live.</p>
  if (isEmpty(diff))
    return (
      <p data-testid={testid} data-empty="true">
        The draft's nodes are those of the live version.
      </p>
    )
  const part = (change: Change, ids: string[]) =>
    ids.length ? (
      <li class={`diff-${change}`}>
        {change}: {ids.join(', ')}
      </li>
    ) : null
  return (
    <ul class="diff-summary" data-testid={testid}>
      {part('added', diff.added)}
      {part('changed', diff.changed)}
      {part('removed', diff.removed)}
    </ul>
  )
}

/** The live version, the draft's diff against it, and whether the canvas shows it. */
export function useDiff(workflowId: string, doc: Doc) {
  const [shown, setShown] = useState(false)
  const [published, setPublished] = useState(0)
  const live = useLive(workflowId, published)
  const diff = useMemo(() => (live ? diffOf(doc.definition, live.definition) : null), [live, doc.definition])
  return {
    live,
    diff,
    shown,
    toggle: () => setShown((s) => !s),
    /** Reads the live version again (after publishing). */
    refresh: () => setPublished((n) => n + 1),
  }
}

export function DiffToggle({ state }: { state: ReturnType<typeof useDiff> }) {
  return (
    <button
      type="button"
      data-testid="diff"
      aria-pressed={state.shown}
      onClick={state.toggle}
      title="the draft against the live version"
    >
      {state.shown ? 'Hide changes' : 'Changes since live'}
    </button>
  )
}
