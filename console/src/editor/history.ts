/**
 * Undo and redo of every edit, back to the document as it was opened: each step keeps a whole
 * document (they share nothing, so a step never changes after it is taken). Edits of one field
 * following each other closely are one step, so that undo takes back a word, not a letter.
 */
import type { Doc } from './model.ts'

export interface History {
  past: Doc[]
  present: Doc
  future: Doc[]
  /** What the last step edited (a field's node and pointer), and when, for merging. */
  lastKey?: string
  lastAt?: number
}

const MERGE_MS = 800

export const startHistory = (doc: Doc): History => ({ past: [], present: doc, future: [] })

/** A new step; `key` names a field edit that may merge with the step before it. */
export function record(history: History, doc: Doc, key?: string, now = Date.now()): History {
  // An edit that changes nothing (a field set to its value, a node put where it is) is no step.
  if (doc === history.present || JSON.stringify(doc) === JSON.stringify(history.present)) return history
  const merge = key !== undefined && key === history.lastKey && now - (history.lastAt ?? 0) < MERGE_MS
  const past = merge ? history.past : [...history.past, history.present]
  return { past, present: doc, future: [], lastKey: key, lastAt: now }
}

export function undo(history: History): History {
  if (history.past.length === 0) return history
  return {
    past: history.past.slice(0, -1),
    present: history.past[history.past.length - 1],
    future: [history.present, ...history.future],
  }
}

export function redo(history: History): History {
  if (history.future.length === 0) return history
  return { past: [...history.past, history.present], present: history.future[0], future: history.future.slice(1) }
}
