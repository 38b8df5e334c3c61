/**
 * `Prefer: wait=<seconds>` (RFC 7240) on the endpoints that start a run: the answer waits up to
 * that long (at most 60 seconds) and carries `run: { id, status, output }` when the run ended in
 * time, with `Preference-Applied`; otherwise it is the usual answer at the end of the wait.
 */
import type { RunOutcome, RunOutputs } from '../services/run-outputs.ts'

export const MAX_WAIT_SECONDS = 60

/** The seconds a request asks to wait (at most 60), or null when it does not ask. */
export function preferredWait(headers: Headers): number | null {
  const prefer = headers.get('prefer')
  if (!prefer) return null
  const asked = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(prefer)
  return asked ? Math.min(Number(asked[1]), MAX_WAIT_SECONDS) : null
}

/** How the answer of a started run waits: `seconds` asked with Prefer, or a default in milliseconds. */
export interface Waiting {
  outputs?: RunOutputs
  headers: Headers
  /** Response headers to add `Preference-Applied` to. */
  set: { headers: Record<string, string | number> }
  /** The wait when the request does not ask for one (paid calls); 0 by default. */
  defaultMs?: number
}

/** `answer`, plus the run's outcome when it ended within the wait. */
export async function answerWaiting<T extends object>(
  answer: T,
  runId: string | undefined,
  waiting: Waiting,
): Promise<T & { run?: RunOutcome }> {
  const seconds = preferredWait(waiting.headers)
  const waitMs = seconds === null ? (waiting.defaultMs ?? 0) : seconds * 1000
  if (!waiting.outputs || !runId || waitMs <= 0) return answer
  const run = await waiting.outputs.waitFor(runId, waitMs)
  if (!run) return answer
  if (seconds !== null) waiting.set.headers['preference-applied'] = `wait=${seconds}`
  return { ...answer, run }
}
