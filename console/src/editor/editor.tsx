/**
 * The workflow editor (its own chunk, loaded when a workflow is opened): the palette, the canvas,
 * the toolbar (save, publish, undo, redo, fit) and the selected node's panel. Keyboard first:
 * arrows move the selected nodes, Delete removes them, `c` connects the selected node to another,
 * Ctrl+Z / Ctrl+Shift+Z undo and redo, Ctrl+D duplicates, copy and paste carry definition JSON.
 */
import { ReactFlowProvider } from '@xyflow/react'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ErrorBox } from '../ui.tsx'
import { Canvas, type Selection } from './canvas.tsx'
import { copyNodes, pasteNodes, readPasted } from './clipboard.ts'
import { ConnectDialog } from './connect.tsx'
import { DiffLayer, DiffSummary, DiffToggle, useDiff } from './diff.tsx'
import { type Draft, useDraft } from './draft.ts'
import { layout } from './layout.ts'
import * as model from './model.ts'
import { NotesButtons, NotesLayer } from './notes.tsx'
import { Palette } from './palette.tsx'
import { useRunView } from './run-state.ts'
import { glancesOf } from './run-view.tsx'
import { SidePanel } from './side.tsx'
import { TestBar } from './test-data.tsx'
import { Toolbar } from './toolbar.tsx'

const Provider = ReactFlowProvider as any

export default function Editor({ workflowId, onSaved }: { workflowId: string; onSaved?: () => void }) {
  const draft = useDraft(workflowId, onSaved)
  if (!draft.doc)
    return (
      <div class="editor">
        <ErrorBox error={draft.error} />
        <p>Loading the editor…</p>
      </div>
    )
  return (
    <Provider>
      <Loaded draft={draft} doc={draft.doc} workflowId={workflowId} />
    </Provider>
  )
}

const editable = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))

function Loaded({ draft, doc, workflowId }: { draft: Draft; doc: model.Doc; workflowId: string }) {
  const [selection, setSelection] = useState<Selection>({ nodes: [] })
  const [connecting, setConnecting] = useState(false)
  const flow = useRef<{ fitView(): void; toCanvas(p: model.Point): model.Point } | null>(null)
  const catalog = useMemo(() => new Map(draft.catalog.map((e) => [e.type, e])), [draft.catalog])
  const selected = selection.nodes.length === 1 ? selection.nodes[0] : undefined
  const select = (ids: string[]) => setSelection({ nodes: ids })
  const versions = useDiff(workflowId, doc)
  const runs = useRunView(workflowId)
  const glances = useMemo(() => glancesOf(runs.run), [runs.run])

  /** Adds a node of `type`: on the selected edge, after the selected node, or where it was dropped. */
  const add = (type: string, at?: model.Point, edge = selection.edge) => {
    const trigger = catalog.get(type)?.trigger ?? false
    if (edge && !trigger) {
      const inserted = model.insertOnEdge(doc, edge.from, edge.to, type)
      draft.change(inserted.doc)
      return select([inserted.id])
    }
    const positions = layout(doc)
    const after = selected && positions[selected]
    const where = at ?? (after ? { x: after.x + 240, y: after.y } : freeSpot(positions))
    const added = model.addNode(doc, type, trigger, where)
    const next = after && !trigger ? model.connect(added.doc, selected, added.id) : added.doc
    draft.change(next)
    select([added.id])
  }
  const remove = (nodes: string[], edges: { from: string; to: string }[]) => {
    let next = doc
    for (const e of edges) next = model.disconnect(next, e.from, e.to)
    draft.change(model.deleteNodes(next, nodes))
    setSelection({ nodes: [] })
  }
  useClipboard(doc, selection.nodes, (pasted) => {
    const at = freeSpot(layout(doc))
    const result = pasteNodes(doc, pasted, at)
    draft.change(result.doc)
    select(result.ids)
  })
  const onKey = (event: KeyboardEvent) => {
    if (editable(event.target)) return
    const mod = event.ctrlKey || event.metaKey
    if (mod && event.key.toLowerCase() === 'z') draft[event.shiftKey ? 'redo' : 'undo']()
    else if (mod && event.key.toLowerCase() === 'y') draft.redo()
    else if (mod && event.key.toLowerCase() === 'd' && selected) {
      const copy = model.duplicate(doc, selected)
      draft.change(copy.doc)
      select([copy.id])
    } else if (!mod && event.key === 'c' && selected) setConnecting(true)
    else return
    event.preventDefault()
  }
  return (
    // biome-ignore lint/a11y: the editor's shortcuts are listened to where focus is, inside it
    <div class="editor" onKeyDown={onKey}>
      <Toolbar
        draft={draft}
        fit={() => flow.current?.fitView()}
        extra={
          <>
            <NotesButtons doc={doc} selected={selected} onChange={draft.change} />
            <DiffToggle state={versions} />
          </>
        }
        beforePublish={<DiffSummary diff={versions.diff} testid="publish-diff" />}
        onPublished={versions.refresh}
      />
      <ErrorBox error={draft.error} />
      <TestBar draft={draft} doc={doc} runs={runs} />
      {versions.shown ? (
        <div class="editor-bar" role="status">
          <span>The draft against the live version:</span>
          <DiffSummary diff={versions.diff} testid="diff-summary" />
        </div>
      ) : null}
      <div class="editor-body">
        <Palette entries={draft.catalog} onPick={(type) => add(type)} />
        <Canvas
          doc={doc}
          catalog={catalog}
          problems={draft.problems.byNode}
          runs={glances}
          selection={selection}
          onSelect={setSelection}
          onMove={(positions) => draft.change(model.move(doc, positions))}
          onConnect={(from, to, branch) => draft.change(model.connect(doc, from, to, branch))}
          onDelete={remove}
          onDrop={(type, at, edge) => add(type, flow.current?.toCanvas(at), edge)}
          onReady={(f) => (flow.current = f)}
        >
          <NotesLayer doc={doc} onChange={draft.change} />
          {versions.shown && versions.live && versions.diff ? (
            <DiffLayer doc={doc} live={versions.live} diff={versions.diff} />
          ) : null}
        </Canvas>
        {selected && doc.definition.nodes[selected] ? (
          <SidePanel
            workflowId={workflowId}
            doc={doc}
            nodeId={selected}
            catalog={catalog}
            problems={draft.problems.byNode[selected] ?? []}
            runs={runs}
            beforeTest={draft.saveIfDirty}
            onChange={(pointer, value) =>
              draft.change(model.setAt(doc, selected, pointer, value), `${selected}${pointer}`)
            }
            onRename={(to) => {
              const next = model.rename(doc, selected, to)
              if (next === doc) return
              draft.change(next)
              select([to])
            }}
          />
        ) : null}
      </div>
      {connecting && selected ? (
        <ConnectDialog
          doc={doc}
          from={selected}
          catalog={catalog}
          onCancel={() => setConnecting(false)}
          onConnect={(to, branch) => {
            draft.change(model.connect(doc, selected, to, branch))
            setConnecting(false)
          }}
        />
      ) : null}
    </div>
  )
}

/** A place below every node, for nodes added with nothing selected. */
function freeSpot(positions: Record<string, model.Point>): model.Point {
  const all = Object.values(positions)
  if (all.length === 0) return { x: 40, y: 40 }
  return { x: Math.min(...all.map((p) => p.x)), y: Math.max(...all.map((p) => p.y)) + 110 }
}

/** Copy puts the selected nodes on the clipboard as definition JSON; paste adds what the clipboard holds. */
function useClipboard(doc: model.Doc, selected: string[], onPaste: (pasted: model.Definition) => void) {
  const latest = useRef({ doc, selected, onPaste })
  latest.current = { doc, selected, onPaste }
  useEffect(() => {
    const copy = (event: ClipboardEvent) => {
      const { doc, selected } = latest.current
      if (editable(event.target) || selected.length === 0 || !event.clipboardData) return
      event.clipboardData.setData('text/plain', copyNodes(doc, selected))
      event.preventDefault()
    }
    const paste = (event: ClipboardEvent) => {
      if (editable(event.target)) return
      const pasted = readPasted(event.clipboardData?.getData('text/plain') ?? '')
      if (!pasted) return
      latest.current.onPaste(pasted)
      event.preventDefault()
    }
    document.addEventListener('copy', copy)
    document.addEventListener('paste', paste)
    return () => {
      document.removeEventListener('copy', copy)
      document.removeEventListener('paste', paste)
    }
  }, [])
}
