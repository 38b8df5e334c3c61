/**
 * Sticky notes and comments (with replies) of the editor's document, kept in its uiMetadata as the
 * API holds them (`stickyNotes`, `comments`). Like every edit of the document, each answers a new
 * document, so that undo and redo cover them too.
 */
import { clone, type Doc, type Point } from './model.ts'

export interface Author {
  clientId?: string
  name?: string
}
export interface StickyNote {
  id: string
  text: string
  color?: string
  position?: Point
  size?: { width: number; height: number }
  zIndex?: number
  createdBy?: Author
  createdAt?: string
  updatedAt?: string
}
export interface Reply {
  id: string
  text: string
  createdBy?: Author
  createdAt?: string
  updatedAt?: string
}
export interface Comment extends Reply {
  nodeId?: string
  resolved?: boolean
  position?: Point
  replies?: Reply[]
}

export const NOTE_SIZE = { width: 200, height: 120 }
const now = () => new Date().toISOString()
const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`

export const notesOf = (doc: Doc) => (doc.uiMetadata.stickyNotes ?? []) as StickyNote[]
export const commentsOf = (doc: Doc) => (doc.uiMetadata.comments ?? []) as Comment[]

function withNotes(doc: Doc, notes: StickyNote[]): Doc {
  const next = clone(doc)
  next.uiMetadata.stickyNotes = notes
  return next
}

function withComments(doc: Doc, comments: Comment[]): Doc {
  const next = clone(doc)
  next.uiMetadata.comments = comments
  return next
}

export function addNote(doc: Doc, at: Point, by: Author): { doc: Doc; id: string } {
  const id = newId('note')
  const zIndex = Math.max(0, ...notesOf(doc).map((n) => n.zIndex ?? 0)) + 1
  const note: StickyNote = {
    id,
    text: '',
    color: 'yellow',
    position: { x: Math.round(at.x), y: Math.round(at.y) },
    size: NOTE_SIZE,
    zIndex,
    createdBy: by,
    createdAt: now(),
    updatedAt: now(),
  }
  return { doc: withNotes(doc, [...notesOf(doc), note]), id }
}

export const setNoteText = (doc: Doc, id: string, text: string) =>
  withNotes(
    doc,
    notesOf(doc).map((n) => (n.id === id ? { ...n, text, updatedAt: now() } : n)),
  )

/** The note put at `at` (canvas coordinates, whole pixels), as dragged or moved from the keyboard. */
export const moveNote = (doc: Doc, id: string, at: Point) =>
  withNotes(
    doc,
    notesOf(doc).map((n) =>
      n.id === id ? { ...n, position: { x: Math.round(at.x), y: Math.round(at.y) }, updatedAt: now() } : n,
    ),
  )

export const removeNote = (doc: Doc, id: string) =>
  withNotes(
    doc,
    notesOf(doc).filter((n) => n.id !== id),
  )

/** A comment on a node (drawn beside it), or on the canvas at `at`. */
export function addComment(doc: Doc, nodeId: string | undefined, at: Point, by: Author): { doc: Doc; id: string } {
  const id = newId('comment')
  const comment: Comment = {
    id,
    ...(nodeId ? { nodeId } : {}),
    text: '',
    resolved: false,
    position: { x: Math.round(at.x), y: Math.round(at.y) },
    createdBy: by,
    createdAt: now(),
    updatedAt: now(),
    replies: [],
  }
  return { doc: withComments(doc, [...commentsOf(doc), comment]), id }
}

const editComment = (doc: Doc, id: string, edit: (c: Comment) => Comment) =>
  withComments(
    doc,
    commentsOf(doc).map((c) => (c.id === id ? { ...edit(c), updatedAt: now() } : c)),
  )

export const setCommentText = (doc: Doc, id: string, text: string) => editComment(doc, id, (c) => ({ ...c, text }))

export const resolveComment = (doc: Doc, id: string, resolved: boolean) =>
  editComment(doc, id, (c) => ({ ...c, resolved }))

export const removeComment = (doc: Doc, id: string) =>
  withComments(
    doc,
    commentsOf(doc).filter((c) => c.id !== id),
  )

export function addReply(doc: Doc, commentId: string, text: string, by: Author): Doc {
  const reply: Reply = { id: newId('reply'), text, createdBy: by, createdAt: now(), updatedAt: now() }
  return editComment(doc, commentId, (c) => ({ ...c, replies: [...(c.replies ?? []), reply] }))
}
