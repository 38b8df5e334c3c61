/**
 * The editor's toolbar: save (on condition of the draft's version), publish after a confirmation,
 * undo, redo, fit to view; and the bar shown when someone else saved the draft meanwhile.
 */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { Draft } from './draft.ts'

interface ToolbarProps {
  draft: Draft
  fit(): void
  /** More buttons (notes, the diff switch). */
  extra?: ComponentChildren
  /** What the publish confirmation shows first (the draft against the live version). */
  beforePublish?: ComponentChildren
  onPublished?(): void
}

export function Toolbar({ draft, fit, extra, beforePublish, onPublished }: ToolbarProps) {
  const [confirming, setConfirming] = useState(false)
  const problems = Object.values(draft.problems.byNode).flat().length + draft.problems.other.length
  return (
    <>
      <div class="editor-toolbar" role="toolbar" aria-label="editor">
        <button type="button" data-testid="save" onClick={draft.save} disabled={draft.busy || draft.conflict}>
          {draft.dirty ? 'Save draft' : 'Saved'}
        </button>
        <button type="button" data-testid="publish" onClick={() => setConfirming(true)} disabled={draft.busy}>
          Publish…
        </button>
        <button type="button" data-testid="undo" onClick={draft.undo} disabled={!draft.canUndo} title="Ctrl+Z">
          Undo
        </button>
        <button type="button" data-testid="redo" onClick={draft.redo} disabled={!draft.canRedo} title="Ctrl+Shift+Z">
          Redo
        </button>
        <button type="button" data-testid="fit" onClick={fit}>
          Fit
        </button>
        {extra}
        <span
          class="hint"
          data-testid="problems"
          data-checking={draft.checking ? 'true' : undefined}
          aria-live="polite"
        >
          {problems ? `${problems} problem${problems === 1 ? '' : 's'} found` : 'no problems found'}
        </span>
      </div>
      {confirming ? (
        <div class="editor-bar" role="alertdialog" aria-label="publish">
          <span>
            Publish {draft.dirty ? 'the unsaved changes and ' : ''}this draft as the live version? Runs from now on use
            it.
          </span>
          {beforePublish}
          <button
            type="button"
            data-testid="publish-confirm"
            onClick={async () => {
              setConfirming(false)
              await draft.publish()
              onPublished?.()
            }}
          >
            Publish
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : null}
      {draft.conflict ? (
        <div class="editor-bar conflict" role="alert">
          <span>Someone saved this draft since you opened it; your changes were not saved.</span>
          <button type="button" data-testid="conflict-reload" onClick={draft.reload}>
            Reload theirs (drop mine)
          </button>
          <button type="button" data-testid="conflict-keep" onClick={draft.keepCopy}>
            Keep mine as a new workflow
          </button>
        </div>
      ) : null}
    </>
  )
}
