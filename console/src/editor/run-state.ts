/**
 * The run the editor is looking at: the workflow's runs for the picker (the latest test run by
 * default, production runs selectable too; read again as the workflow's run stream tells of runs
 * started or ended elsewhere), and the chosen run read in two parts: its summary at
 * once (statuses and durations for the canvas, read again until the run ends), then the whole run
 * with every node's input and result, which the node's run view and the expressions use.
 */
import { useEffect, useState } from 'preact/hooks'
import { follow } from '../api.ts'
import { throttle } from '../throttle.ts'
import { FINISHED, listRuns, loadRun, type RunItem, type RunRecord, startTestRun } from './run-io.ts'

const POLL_MS = 500
/**
 * How the list is read again on the stream's news: run events arriving together (a run's start
 * and end) read it once, 200 ms after the first; while runs keep starting and ending, at most
 * every 500 ms, so news is shown within half a second however busy the workflow.
 */
const LIST_REFRESH = { settleMs: 200, gapMs: 500 }

/** The default choice: the newest test run, else the newest run. */
const latest = (runs: RunItem[]) => (runs.find((r) => r.test) ?? runs[0])?.id ?? null

export function useRunView(workflowId: string) {
  const [runs, setRuns] = useState<RunItem[]>([])
  const [selected, setSelected] = useState<string | null>(null)
  const [summary, setSummary] = useState<RunRecord | null>(null)
  const [whole, setWhole] = useState<RunRecord | null>(null)
  const [error, setError] = useState<unknown>(null)

  const refresh = async (choose?: string) => {
    const listed = await listRuns(workflowId)
    setRuns(listed)
    setSelected((current) => choose ?? current ?? latest(listed))
  }
  useEffect(() => {
    refresh().catch(setError)
    const news = throttle(() => refresh().catch(setError), LIST_REFRESH)
    const stop = follow(`/v1/workflows/${encodeURIComponent(workflowId)}/runs/stream`, news)
    return () => {
      news.cancel()
      stop()
    }
  }, [workflowId])
  useEffect(() => {
    setSummary(null)
    setWhole(null)
    if (!selected) return
    let current = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const follow = async () => {
      const read = await loadRun(selected, true)
      if (!current) return
      setSummary(read)
      if (!FINISHED.has(read.status)) {
        timer = setTimeout(() => follow().catch(setError), POLL_MS)
        return
      }
      const full = await loadRun(selected, false)
      if (current) setWhole(full)
      refresh().catch(setError)
    }
    follow().catch(setError)
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [selected])

  return {
    runs,
    selected,
    /** The run being looked at: whole once read, its summary until then. */
    run: whole ?? summary,
    /** The whole run (inputs and results), once read. */
    whole,
    error,
    select: (id: string | null) => setSelected(id),
    /** Reads the list of runs again (runs started elsewhere appear). */
    refresh: () => refresh().catch(setError),
    /** Starts a test run of the stored draft and looks at it. */
    startTest: async (payload?: Record<string, unknown>) => {
      setError(null)
      const { runId } = await startTestRun(workflowId, payload)
      await refresh(runId)
    },
  }
}

export type RunView = ReturnType<typeof useRunView>
