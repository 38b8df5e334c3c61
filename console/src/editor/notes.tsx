/**
 * Sticky notes and comments drawn on the canvas (in its coordinates, so they pan and zoom with
 * the graph), and the toolbar's buttons that add them. A comment on a node is drawn above it.
 * Every edit goes through the draft's history: undo takes back a note as it takes back a node.
 */
import { ViewportPortal } from '@xyflow/react'
import { useState } from 'preact/hooks'
import { session } from '../api.ts'
import { layout } from './layout.ts'
import type { Doc, Point } from './model.ts'
import * as notes from './notes.ts'

/** Records a change as a function of the latest draft (a keystroke and a click in one turn both count). */
type Change = (next: (latest: Doc) => Doc, key?: string) => void

const Portal = ViewportPortal as any
/** Keeps React Flow from panning or zooming while a note is clicked, dragged over or scrolled. */
const FREE = 'nodrag nopan nowheel'

const author = (): notes.Author => {
  const user = session.value?.user
  return user ? { clientId: user.id, name: user.name || user.email } : {}
}

/** Above the graph's top-left corner, where a new note or comment does not cover a node. */
function spotAbove(doc: Doc): Point {
  const all = Object.values(layout(doc))
  const taken = notes.notesOf(doc).length + notes.commentsOf(doc).length
  if (all.length === 0) return { x: 40 + taken * 30, y: 40 }
  return { x: Math.min(...all.map((p) => p.x)) + taken * 30, y: Math.min(...all.map((p) => p.y)) - 160 }
}

export function NotesButtons({ doc, selected, onChange }: { doc: Doc; selected?: string; onChange: Change }) {
  return (
    <>
      <button
        type="button"
        data-testid="add-note"
        onClick={() => onChange((d) => notes.addNote(d, spotAbove(d), author()).doc)}
      >
        Add note
      </button>
      <button
        type="button"
        data-testid="add-comment"
        title={selected ? `comment on ${selected}` : 'comment on the canvas'}
        onClick={() => onChange((d) => notes.addComment(d, selected, spotAbove(d), author()).doc)}
      >
        Comment{selected ? ' on node' : ''}
      </button>
    </>
  )
}

export function NotesLayer({ doc, onChange }: { doc: Doc; onChange: Change }) {
  const positions = layout(doc)
  return (
    <Portal>
      {notes.notesOf(doc).map((note) => (
        <Sticky key={note.id} doc={doc} note={note} onChange={onChange} />
      ))}
      {notes.commentsOf(doc).map((comment) => {
        const node = comment.nodeId ? positions[comment.nodeId] : undefined
        const at = node ? { x: node.x, y: node.y - 8 } : (comment.position ?? { x: 0, y: 0 })
        return <CommentBox key={comment.id} doc={doc} comment={comment} at={at} above={!!node} onChange={onChange} />
      })}
    </Portal>
  )
}

/** Arrow keys move a note by this many canvas pixels (ten times as far with Shift). */
const KEY_STEP = 10
const ARROWS: Record<string, Point> = {
  ArrowLeft: { x: -1, y: 0 },
  ArrowRight: { x: 1, y: 0 },
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
}

interface GripProps {
  doc: Doc
  note: notes.StickyNote
  /** Where the note is drawn while it is dragged (null once dropped). */
  onDrag(at: Point | null): void
  onChange: Change
}

/**
 * A note's grip: dragged with the mouse (the note follows the pointer, in the canvas's zoom, and
 * the place it is dropped on is one step of history) or moved with the arrow keys.
 */
function NoteGrip({ doc, note, onDrag, onChange }: GripProps) {
  const at = note.position ?? { x: 0, y: 0 }
  const start = (event: PointerEvent) => {
    if (event.button !== 0) return
    event.preventDefault()
    const grip = event.currentTarget as HTMLElement
    grip.setPointerCapture(event.pointerId)
    const zoom = zoomOf(grip)
    const from = { x: event.clientX, y: event.clientY }
    const to = (e: PointerEvent) => ({ x: at.x + (e.clientX - from.x) / zoom, y: at.y + (e.clientY - from.y) / zoom })
    const move = (e: PointerEvent) => onDrag(to(e))
    const end = (e: PointerEvent) => {
      grip.removeEventListener('pointermove', move)
      grip.removeEventListener('pointerup', end)
      grip.removeEventListener('pointercancel', end)
      onDrag(null)
      const dropped = to(e)
      // A click on the grip, or a drag back to where it began, is no step of history.
      const moved = Math.round(dropped.x) !== at.x || Math.round(dropped.y) !== at.y
      if (e.type === 'pointerup' && moved) onChange((d) => notes.moveNote(d, note.id, dropped))
    }
    grip.addEventListener('pointermove', move)
    grip.addEventListener('pointerup', end)
    grip.addEventListener('pointercancel', end)
  }
  const key = (event: KeyboardEvent) => {
    const arrow = ARROWS[event.key]
    if (!arrow) return
    event.preventDefault()
    event.stopPropagation()
    const step = event.shiftKey ? KEY_STEP * 10 : KEY_STEP
    const next = { x: at.x + arrow.x * step, y: at.y + arrow.y * step }
    onChange((d) => notes.moveNote(d, note.id, next), `note-move:${note.id}`)
  }
  return (
    <button
      type="button"
      class="note-grip"
      aria-label="move the note (drag, or arrow keys)"
      data-testid={`note-grip:${note.id}`}
      onPointerDown={start as any}
      onKeyDown={key as any}
    />
  )
}

/** The canvas's zoom, read from the transform of the viewport the note is drawn in. */
function zoomOf(element: HTMLElement): number {
  const viewport = element.closest('.react-flow__viewport') as HTMLElement | null
  const scale = viewport ? new DOMMatrixReadOnly(getComputedStyle(viewport).transform).a : 1
  return scale > 0 ? scale : 1
}

function Sticky({ doc, note, onChange }: { doc: Doc; note: notes.StickyNote; onChange: Change }) {
  const [dragged, setDragged] = useState<Point | null>(null)
  const at = dragged ?? note.position ?? { x: 0, y: 0 }
  const size = note.size ?? notes.NOTE_SIZE
  return (
    <div
      class={`sticky-note ${FREE}`}
      data-testid={`note:${note.id}`}
      data-color={note.color}
      style={{
        transform: `translate(${at.x}px, ${at.y}px)`,
        width: size.width,
        minHeight: size.height,
        zIndex: note.zIndex,
      }}
    >
      <NoteGrip doc={doc} note={note} onDrag={setDragged} onChange={onChange} />
      <textarea
        aria-label="sticky note"
        data-testid={`note-text:${note.id}`}
        placeholder="A note for the team…"
        value={note.text}
        onInput={(e) => {
          const text = e.currentTarget.value
          onChange((d) => notes.setNoteText(d, note.id, text), `note:${note.id}`)
        }}
      />
      <button
        type="button"
        class="link"
        data-testid={`note-delete:${note.id}`}
        onClick={() => onChange((d) => notes.removeNote(d, note.id))}
      >
        Remove
      </button>
    </div>
  )
}

interface CommentProps {
  doc: Doc
  comment: notes.Comment
  at: Point
  above: boolean
  onChange: Change
}

function CommentBox({ doc, comment, at, above, onChange }: CommentProps) {
  const [reply, setReply] = useState('')
  const sendReply = () => {
    if (!reply.trim()) return
    const text = reply.trim()
    onChange((d) => notes.addReply(d, comment.id, text, author()))
    setReply('')
  }
  return (
    <div
      class={`comment-box ${FREE}${comment.resolved ? ' resolved' : ''}`}
      data-testid={`comment:${comment.id}`}
      style={{ transform: `translate(${at.x}px, ${at.y}px)${above ? ' translateY(-100%)' : ''}` }}
    >
      <div class="comment-head">
        <strong>{comment.createdBy?.name ?? 'someone'}</strong>
        {comment.nodeId ? <span class="hint"> on {comment.nodeId}</span> : null}
      </div>
      <textarea
        aria-label="comment"
        data-testid={`comment-text:${comment.id}`}
        placeholder="Comment…"
        value={comment.text}
        onInput={(e) => {
          const text = e.currentTarget.value
          onChange((d) => notes.setCommentText(d, comment.id, text), `comment:${comment.id}`)
        }}
      />
      {(comment.replies ?? []).map((r) => (
        <p class="comment-reply" data-testid={`reply:${r.id}`} key={r.id}>
          <strong>{r.createdBy?.name ?? 'someone'}</strong> {r.text}
        </p>
      ))}
      <div class="comment-actions">
        <input
          aria-label="reply"
          data-testid={`reply-text:${comment.id}`}
          placeholder="Reply…"
          value={reply}
          onInput={(e) => setReply(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && sendReply()}
        />
        <button type="button" data-testid={`reply-send:${comment.id}`} onClick={sendReply}>
          Reply
        </button>
        <label>
          <input
            type="checkbox"
            data-testid={`comment-resolved:${comment.id}`}
            checked={!!comment.resolved}
            onChange={(e) => {
              const resolved = e.currentTarget.checked
              onChange((d) => notes.resolveComment(d, comment.id, resolved))
            }}
          />{' '}
          resolved
        </label>
        <button type="button" class="link" onClick={() => onChange((d) => notes.removeComment(d, comment.id))}>
          Remove
        </button>
      </div>
    </div>
  )
}
