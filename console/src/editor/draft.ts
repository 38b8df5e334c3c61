/**
 * The draft being edited: loaded with its version, changed through the undo history, checked by
 * the server as it changes (debounced), saved on condition of its version (a conflict is kept
 * until the person reloads or keeps a copy), and published.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api.ts'
import { navigate } from '../router.ts'
import { type History, record, redo, startHistory, undo } from './history.ts'
import {
  createCopy,
  type Entry,
  loadCatalog,
  loadWorkflow,
  type Problem,
  publish,
  saveDraft,
  savePinned,
  validate,
} from './io.ts'
import type { Doc } from './model.ts'

const VALIDATE_MS = 500

function docOf(workflow: Record<string, any>): Doc {
  const definition = structuredClone(workflow.definition ?? { nodes: {} })
  definition.nodes ??= {}
  return { definition, uiMetadata: structuredClone(workflow.uiMetadata ?? {}) }
}

export function useDraft(workflowId: string, onSaved?: () => void) {
  const [workflow, setWorkflow] = useState<Record<string, any> | null>(null)
  const [history, setHistory] = useState<History | null>(null)
  const [saved, setSaved] = useState<Doc | null>(null)
  const [catalog, setCatalog] = useState<Entry[]>([])
  const [problems, setProblems] = useState<{ byNode: Record<string, Problem[]>; other: Problem[] }>({
    byNode: {},
    other: [],
  })
  const [conflict, setConflict] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const etag = useRef<string | null>(null)

  const open = async () => {
    const loaded = await loadWorkflow(workflowId)
    etag.current = loaded.etag
    const doc = docOf(loaded.workflow)
    setWorkflow(loaded.workflow)
    setHistory(startHistory(doc))
    setSaved(doc)
    setConflict(false)
  }
  useEffect(() => {
    open().catch(setError)
    loadCatalog().then(setCatalog, setError)
  }, [workflowId])

  const doc = history?.present ?? null
  const [checking, setChecking] = useState(false)
  useEffect(() => {
    if (!doc) return
    setChecking(true)
    let current = true
    const timer = setTimeout(
      () =>
        validate(doc)
          .then(
            (found) => current && setProblems(found),
            () => {},
          )
          .finally(() => current && setChecking(false)),
      VALIDATE_MS,
    )
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [doc])

  const guarded = (work: () => Promise<void>) => async () => {
    setBusy(true)
    setError(null)
    try {
      await work()
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) setConflict(true)
      else setError(e)
    } finally {
      setBusy(false)
    }
  }
  const persist = async () => {
    if (!doc) return
    const answer = await saveDraft(workflowId, doc, etag.current)
    etag.current = answer.etag
    setWorkflow(answer.workflow)
    setSaved(doc)
    onSaved?.()
  }
  const save = guarded(persist)
  /** Pins trigger samples: saved at once, apart from the unsaved edits, on condition of the draft's version. */
  const pin = (pinnedData: Record<string, unknown>) =>
    guarded(async () => {
      const answer = await savePinned(workflowId, pinnedData, etag.current)
      etag.current = answer.etag
      setWorkflow(answer.workflow)
    })()
  return {
    workflow,
    doc,
    catalog,
    problems,
    /** Whether the server is checking the latest change. */
    checking,
    conflict,
    error,
    busy,
    dirty: doc !== null && doc !== saved,
    canUndo: (history?.past.length ?? 0) > 0,
    canRedo: (history?.future.length ?? 0) > 0,
    /**
     * Records a change: the next draft, or a function of the latest one (so that edits made in one
     * turn, a keystroke then a click, each apply to what the one before left).
     */
    change: (next: Doc | ((latest: Doc) => Doc), key?: string) =>
      setHistory((h) => (h ? record(h, typeof next === 'function' ? next(h.present) : next, key) : h)),
    undo: () => setHistory((h) => (h ? undo(h) : h)),
    redo: () => setHistory((h) => (h ? redo(h) : h)),
    save,
    pin,
    /** Saves unsaved edits first: test runs and nodes run again use the draft as stored. */
    saveIfDirty: async () => {
      if (doc !== saved) await persist()
    },
    publish: guarded(async () => {
      if (doc !== saved) await persist()
      await publish(workflowId)
      onSaved?.()
    }),
    reload: guarded(open),
    keepCopy: guarded(async () => {
      if (!doc || !workflow) return
      const copy = await createCopy(workflow.name, doc)
      navigate(`/workflows/${copy.id}`)
    }),
  }
}

export type Draft = ReturnType<typeof useDraft>
