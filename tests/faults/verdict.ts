/**
 * What a fault scenario promised, read back after it: from the client's records (every attempt
 * and its answer), the readiness samples, the receiver's call counts and the database (runs and
 * their journals). It judges nothing itself: the tests assert on it, the benchmark prints it.
 */
import { queryDatabase } from '../helpers/stores.ts'
import type { Exit } from './cluster.ts'
import type { Attempt, CallCounter, SentRun } from './load.ts'
import { type ReadySample, readyForGoodAt } from './readiness.ts'

/** An answer slower than this during an outage counts as hanging: a client must learn to resend. */
export const HANG_MS = 5_000

export interface FaultWindow {
  /** When the fault began (the dependency went away, the process was killed or frozen). */
  faultAt: number
  /** When the dependency was back (restarted, woken, space freed). */
  returnAt: number
}

export interface BadAnswer {
  id: string
  status: Attempt['status']
  ms: number
  retryAfter: string | null
  errorBody: boolean
}

export interface Verdict {
  sent: number
  accepted: number
  skipped: Array<{ id: string; reason?: string }>
  gaveUp: string[]
  /** Attempts sent between the fault and the return. */
  outage: { attempts: number; byStatus: Record<string, number>; refusals: number; bad: BadAnswer[]; slowestMs: number }
  /** Attempts sent more than 5 s after the return and not answered 2xx. */
  lateFailures: Record<string, number>
  readiness: Array<{ name: string; unreadyDuringOutage: boolean; readyAfterReturnMs: number | null; slowestMs: number }>
  runs: {
    /** Accepted (answered 2xx) with no run stored. */
    lost: string[]
    /** Stored and not ended when the drain gave up. */
    notEnded: string[]
    /** More than one terminal journal event. */
    endedTwice: string[]
    notSuccess: Array<{ id: string; status: string; error: string }>
    /** A request whose answers named two runs, a key with two runs, or a run of an id no client sent. */
    secondRuns: string[]
  }
  /** Nodes the receiver saw called more than once (same run, same node), and of those, with another idempotency key. */
  duplicates: { nodes: number; otherKeys: number; examples: string[] }
  exits: Exit[]
  times: {
    /** From the return until every process answered /readyz 200, and kept answering it. */
    readyAfterReturnMs: number | null
    /** From the return until every run sent before it and accepted (then or later) had ended. */
    endedAfterReturnMs: number | null
    /** The same from the fault: for a crash or a freeze, how long its runs took to be taken over and ended. */
    endedAfterFaultMs: number | null
    /** From the return until the first request sent after it was answered 2xx. */
    acceptedAfterReturnMs: number | null
  }
}

const TERMINAL = ['success', 'partial', 'failure', 'cancelled']
const TERMINAL_EVENTS = "('run.succeeded', 'run.partial', 'run.failed', 'run.cancelled')"
const isOk = (status: Attempt['status']) => typeof status === 'number' && status >= 200 && status < 300

/** Waits until no run of these workflows is running or waiting; answers false at the deadline. */
export async function drained(env: Record<string, string>, workflowIds: string[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  const list = workflowIds.map((_, i) => `$${i + 1}`).join(', ')
  const sql = `SELECT COUNT(*) AS n FROM runs WHERE workflow_id IN (${list}) AND status IN ('running', 'waiting')`
  for (;;) {
    const open = await queryDatabase<{ n: number }>(env, sql, workflowIds).catch(() => [{ n: -1 }])
    if (Number(open[0].n) === 0) return true
    if (Date.now() > deadline) return false
    await Bun.sleep(250)
  }
}

interface RunRow {
  id: string
  workflow_id: string
  status: string
  idempotency_key: string | null
  finished_at: number | null
  error: unknown
}

const maxOf = (values: number[]) => values.reduce((a, b) => Math.max(a, b), 0)
const tally = (statuses: Attempt['status'][]) => {
  const counts: Record<string, number> = {}
  for (const status of statuses) counts[String(status)] = (counts[String(status)] ?? 0) + 1
  return counts
}

export async function judge(input: {
  env: Record<string, string>
  workflowIds: string[]
  sent: SentRun[]
  window: FaultWindow
  readiness: Map<string, ReadySample[]>
  calls: CallCounter
  exits: Exit[]
}): Promise<Verdict> {
  const { env, workflowIds, sent, window } = input
  const list = workflowIds.map((_, i) => `$${i + 1}`).join(', ')
  const rows = await queryDatabase<RunRow>(
    env,
    `SELECT id, workflow_id, status, idempotency_key, finished_at, error FROM runs WHERE workflow_id IN (${list})`,
    workflowIds,
  )
  const ends = await queryDatabase<{ run_id: string; n: number }>(
    env,
    `SELECT run_id, COUNT(*) AS n FROM events WHERE workflow_id IN (${list}) AND type IN ${TERMINAL_EVENTS} GROUP BY run_id`,
    workflowIds,
  )
  const byId = new Map(rows.map((r) => [r.id, r]))
  const accepted = sent.filter((s) => s.outcome === 'accepted')
  const duplicated = [...input.calls.calls()].filter(([, c]) => c.count > 1)
  const readiness = [...input.readiness].map(([name, samples]) => ({ name, ...readinessOf(samples, window) }))
  const readyTimes = readiness.map((r) => r.readyAfterReturnMs)
  // Runs asked for before the return (then or, resent, later): the ones the outage held up.
  const before = accepted
    .filter((s) => s.firstSentAt < window.returnAt)
    .map((s) => byId.get([...s.runIds][0])?.finished_at)
  const ended = (since: number) =>
    before.some((f) => f == null) ? null : Math.max(0, maxOf(before.map((f) => Number(f) - since)))
  const answeredAfter = sent
    .flatMap((s) => s.attempts)
    .filter((a) => a.sentAt >= window.returnAt && isOk(a.status))
    .map((a) => a.sentAt + a.ms)
  return {
    sent: sent.length,
    accepted: accepted.length,
    skipped: sent.filter((s) => s.outcome === 'skipped').map((s) => ({ id: s.id, reason: s.skipReason })),
    gaveUp: sent.filter((s) => s.outcome === 'gave-up').map((s) => s.id),
    outage: outageAnswers(sent, window),
    lateFailures: tally(
      sent
        .flatMap((s) => s.attempts)
        .filter((a) => a.sentAt > window.returnAt + 5_000 && !isOk(a.status))
        .map((a) => a.status),
    ),
    readiness,
    runs: {
      lost: accepted.filter((s) => [...s.runIds].some((id) => !byId.has(id))).map((s) => s.id),
      notEnded: rows.filter((r) => !TERMINAL.includes(r.status)).map((r) => r.id),
      endedTwice: ends.filter((e) => Number(e.n) > 1).map((e) => e.run_id),
      notSuccess: rows
        .filter((r) => TERMINAL.includes(r.status) && r.status !== 'success')
        .map((r) => ({
          id: r.id,
          status: r.status,
          error: typeof r.error === 'string' ? r.error : JSON.stringify(r.error),
        })),
      secondRuns: secondRuns(sent, rows),
    },
    duplicates: {
      nodes: duplicated.length,
      otherKeys: duplicated.filter(([, c]) => c.keys.size > 1).length,
      examples: duplicated.slice(0, 5).map(([node, c]) => `${node} ×${c.count}`),
    },
    exits: input.exits,
    times: {
      readyAfterReturnMs: readyTimes.some((t) => t === null) ? null : maxOf(readyTimes as number[]),
      endedAfterReturnMs: ended(window.returnAt),
      endedAfterFaultMs: ended(window.faultAt),
      acceptedAfterReturnMs: answeredAfter.length
        ? answeredAfter.reduce((a, b) => Math.min(a, b)) - window.returnAt
        : null,
    },
  }
}

/** Requests whose answers named two runs, keys with two runs, runs of ids or keys no client sent. */
function secondRuns(sent: SentRun[], rows: RunRow[]): string[] {
  const found = new Set<string>()
  for (const s of sent) {
    if (s.runIds.size > 1) found.add(`${s.id}: answered ${[...s.runIds].join(', ')}`)
    if (s.channel === 'api' && s.runIds.size === 1 && !s.runIds.has(s.id))
      found.add(`${s.id}: answered ${[...s.runIds][0]}`)
  }
  const apiIds = new Set(sent.filter((s) => s.channel === 'api').map((s) => s.id))
  const keys = new Set(sent.filter((s) => s.channel === 'webhook').map((s) => s.id))
  const apiWorkflows = new Set(sent.filter((s) => s.channel === 'api').map((s) => s.workflowId))
  const runsPerKey = new Map<string, number>()
  for (const r of rows) {
    if (apiWorkflows.has(r.workflow_id)) {
      if (!apiIds.has(r.id)) found.add(`${r.id}: a run no client asked for`)
    } else if (!r.idempotency_key || !keys.has(r.idempotency_key))
      found.add(`${r.id}: a run of key ${r.idempotency_key}`)
    else runsPerKey.set(r.idempotency_key, (runsPerKey.get(r.idempotency_key) ?? 0) + 1)
  }
  for (const [key, n] of runsPerKey) if (n > 1) found.add(`${key}: ${n} runs`)
  return [...found]
}

/** The attempts sent during the fault: what they were answered, and which answers broke the promise. */
function outageAnswers(sent: SentRun[], window: FaultWindow): Verdict['outage'] {
  const during = sent
    .flatMap((s) => s.attempts.map((a) => ({ s, a })))
    .filter(({ a }) => a.sentAt >= window.faultAt && a.sentAt < window.returnAt)
  const byStatus = tally(during.map(({ a }) => a.status))
  const refusal = (a: Attempt) => (a.status === 503 || a.status === 429) && Boolean(a.retryAfter) && a.errorBody
  const bad = during
    .filter(({ a }) => a.ms > HANG_MS || (!isOk(a.status) && !refusal(a)))
    .map(({ s, a }) => ({ id: s.id, status: a.status, ms: a.ms, retryAfter: a.retryAfter, errorBody: a.errorBody }))
  return {
    attempts: during.length,
    byStatus,
    refusals: byStatus['503'] ?? 0,
    bad,
    slowestMs: maxOf(during.map(({ a }) => a.ms)),
  }
}

function readinessOf(samples: ReadySample[], window: FaultWindow) {
  const during = samples.filter((s) => s.at >= window.faultAt && s.at < window.returnAt)
  const ready = readyForGoodAt(samples, window.returnAt)
  return {
    unreadyDuringOutage: during.some((s) => s.status === 503),
    readyAfterReturnMs: ready === null ? null : Math.max(0, ready - window.returnAt),
    slowestMs: maxOf(during.map((s) => s.ms)),
  }
}
