/** The console's pure parts behind notes and versions: the draft/live diff, note edits, token amounts in units. */
import { describe, expect, it } from 'bun:test'
import { diffOf } from '../../console/src/editor/diff-of.ts'
import type { Doc } from '../../console/src/editor/model.ts'
import * as notes from '../../console/src/editor/notes.ts'
import { formatUnits } from '../../console/src/units.tsx'

describe('the draft against the live version', () => {
  const live = {
    nodes: {
      root: { type: 'manual', children: ['a'], typeVersion: 1 },
      a: { type: 'log', typeVersion: 1 },
      gone: { type: 'log' },
    },
  }
  it('names added, removed and changed nodes; a pinned type version the draft does not name is no change', () => {
    const draft = {
      nodes: {
        root: { type: 'manual', children: ['a'] },
        a: { type: 'log', payload: { message: 'x' } },
        b: { type: 'log' },
      },
    }
    expect(diffOf(draft, live)).toEqual({ added: ['b'], removed: ['gone'], changed: ['a'] })
  })
})

describe('notes in uiMetadata', () => {
  const doc: Doc = { definition: { nodes: {} }, uiMetadata: {} }
  it('adds a note and a comment with a reply, leaving the earlier documents as they were (for undo)', () => {
    const added = notes.addNote(doc, { x: 1.4, y: 2 }, { name: 'Ada' })
    const written = notes.setNoteText(added.doc, added.id, 'hello')
    const commented = notes.addComment(written, 'a', { x: 0, y: 0 }, { name: 'Ada' })
    const replied = notes.addReply(commented.doc, commented.id, 'yes', { name: 'Bo' })
    expect(doc.uiMetadata).toEqual({})
    expect(notes.notesOf(added.doc)[0]).toMatchObject({ text: '', position: { x: 1, y: 2 } })
    expect(notes.notesOf(replied)[0].text).toBe('hello')
    expect(notes.commentsOf(replied)[0]).toMatchObject({
      nodeId: 'a',
      replies: [{ text: 'yes', createdBy: { name: 'Bo' } }],
    })
    expect(notes.commentsOf(commented.doc)[0].replies).toEqual([])
    expect(notes.notesOf(notes.removeNote(replied, added.id))).toEqual([])
  })
})

describe('token amounts', () => {
  it('are shown in units with their decimals', () => {
    expect(formatUnits('1500000', 6)).toBe('1.5')
    expect(formatUnits('1', 6)).toBe('0.000001')
    expect(formatUnits('-2000000', 6)).toBe('-2')
    expect(formatUnits('123', 0)).toBe('123')
    expect(formatUnits('not a number', 6)).toBe('not a number')
  })
})
