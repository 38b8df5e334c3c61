/**
 * Persists a live run: observes its actor (emitted events and snapshots, never machine
 * actions), numbers each event in the run's journal, and writes the events, the latest
 * snapshot and their side rows (durable timers, waits, persisted variables, consumed inbox
 * events, run controls at the end) in one group-committed transaction per tick. Events are
 * published on the bus only after that commit.
 */
import type { Metrics } from '../../core/ports/metrics.ts'
import { runs, type RunStateColumns } from '../../core/store/runs.ts'
import { workflows } from '../../core/store/workflows.ts'
import { clearWaiting, runInbox, runTimers, runWaits, workflowVariables } from '../../core/store/run-side.ts'
import type { Tracing } from '../../core/ports/tracing.ts'
import type { RunStatus } from '../../core/domain/run.ts'
import { workflowPaused } from '../../core/domain/run-events.ts'
import { isTerminalRunEvent, runStatusOf, type TerminalStatus } from '../../core/domain/run-lifecycle.ts'
import { publishEvents, type RecordedEvent } from '../../core/domain-events.ts'
import type { Bus } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Logger } from '../../core/ports/logger.ts'
import { isUniqueViolation, type SqlExecutor, type Statement, type Store } from '../../core/ports/store.ts'
import type { EventRecorder, JournalEvent, RunJournal, RunMeta } from './types.ts'
import type { WaitInfo } from './state.ts'
import { storedSnapshot } from './stored-snapshot.ts'

const NODE_DONE = new Set(['node.succeeded', 'node.failed', 'node.cancelled', 'node.partial'])

export interface JournalDeps {
  readonly store: Store
  readonly bus: Bus
  readonly clock: Clock
  readonly ids: Ids
  readonly logger: Logger
  readonly recorder: EventRecorder
  readonly consecutiveFailuresPause: number
  readonly workerId: string
  /** Counts finished runs and node executions, and the size of each journal write. */
  readonly metrics?: Metrics
  /** Reports the spans of ended node executions and runs. */
  readonly tracing?: Tracing
}

/** Metrics of what a journal write made durable: ended runs and node executions. */
function observe(
  metrics: Metrics,
  meta: RunMeta,
  events: ReadonlyArray<JournalEvent & { at: number }>,
  snapshot: unknown,
) {
  if (events.length > 0) metrics.journalWrites.observe(events.length)
  for (const e of events) {
    if (!isTerminalRunEvent(e.type)) continue
    const status = runStatusOf(e.type)!
    metrics.runsFinished.inc({ status })
    if (meta.startedAt !== undefined)
      metrics.runDuration.observe({ status }, Math.max(0, (e.at - meta.startedAt) / 1000))
  }
  const nodes =
    (
      snapshot as {
        context?: { nodes?: Record<string, { type?: string; startedAt?: number; finishedAt?: number }> }
      } | null
    )?.context?.nodes ?? {}
  for (const e of events) {
    if (e.type === 'node.succeeded' || e.type === 'node.failed' || e.type === 'node.partial') {
      const node = nodes[String(e.data.key ?? '')]
      if (!node?.type || e.data.trigger || e.data.reused) continue
      const outcome = e.type.slice('node.'.length)
      metrics.nodeDuration.observe(
        { node_type: node.type, outcome },
        Math.max(0, ((node.finishedAt ?? e.at) - (node.startedAt ?? e.at)) / 1000),
      )
    }
  }
}

/** Spans of what a journal write made durable: node executions, the run's end, resumptions. */
function trace(
  tracing: Tracing,
  meta: RunMeta,
  events: ReadonlyArray<JournalEvent & { at: number }>,
  snapshot: unknown,
) {
  const run = {
    traceparent: meta.traceparent!,
    parent: meta.traceCaller ?? null,
    runId: meta.runId,
    workflowId: meta.workflowId,
    organizationId: meta.organizationId,
  }
  const nodes =
    (
      snapshot as {
        context?: {
          nodes?: Record<
            string,
            { nodeId?: string; type?: string; startedAt?: number; finishedAt?: number; attempts?: number }
          >
        }
      } | null
    )?.context?.nodes ?? {}
  for (const e of events) {
    if (e.type === 'node.succeeded' || e.type === 'node.failed' || e.type === 'node.partial') {
      const key = String(e.data.key ?? '')
      const node = nodes[key]
      if (!node?.type || e.data.trigger || e.data.reused) continue
      tracing.node(
        run,
        {
          nodeId: e.nodeId ?? node.nodeId ?? key,
          type: node.type,
          key,
          attempt: Number(e.data.attempt ?? node.attempts ?? 1),
        },
        node.startedAt ?? e.at,
        node.finishedAt ?? e.at,
        e.type.slice('node.'.length),
        typeof e.data.error === 'string' ? e.data.error : undefined,
      )
    } else if (e.type === 'run.resumed') {
      tracing.resumed(run, e.at, typeof e.data.key === 'string' ? e.data.key : null)
    } else if (isTerminalRunEvent(e.type) && meta.startedAt !== undefined) {
      tracing.run(run, meta.startedAt, e.at, runStatusOf(e.type)!)
    }
  }
}

/** Thrown inside a journal transaction when another worker owns the run now. */
class LostOwnership extends Error {}

/** What a journal write stores of the run's actor: read when the write is made. */
export interface JournalState {
  readonly status: RunStatus
  readonly snapshot: unknown
  readonly vars: Record<string, unknown>
  readonly error: unknown
}

export type NumberedEvent = JournalEvent & { seq: number; at: number }

/** How a run that ends at admission is written (see `write`). */
export interface AdmissionWrite {
  /** The statement inserting the run's row with these state columns. */
  insert(columns: RunStateColumns): Statement
  /** The workflow's `consecutive_failures` as admission read it, in the same transaction. */
  readonly consecutiveFailures: number
}

/** What one journal write made durable, and the wait keys it leaves. */
export interface JournalWrite {
  readonly recorded: RecordedEvent[]
  readonly waited: Set<string>
}

/**
 * The journal's write of one run, in the caller's transaction: its events, its state and their
 * side rows (durable timers, waits, persisted variables, consumed inbox events, run controls at
 * the end). Free of side effects outside `tx`: the store may run it again after a rolled-back batch.
 */
export function journalWriter(deps: JournalDeps, meta: RunMeta) {
  const persistLifetime = new Set(meta.variableDefs.filter((v) => v.lifetime === 'persist').map((v) => v.name))

  /**
   * `admission`, for a run that ends in the transaction that admits it: its row is inserted in
   * its final state instead of updated, and the workflow's count of consecutive failures is the
   * one admission read in this transaction.
   */
  async function write(
    tx: SqlExecutor,
    events: readonly NumberedEvent[],
    consumed: readonly string[],
    state: JournalState,
    waitedBefore: ReadonlySet<string>,
    seq: number,
    admission?: AdmissionWrite,
  ): Promise<JournalWrite> {
    const now = deps.clock.now()
    const waited = new Set(waitedBefore)
    const terminal = events.find((e) => isTerminalRunEvent(e.type))
    const control = terminal
      ? controlOf(runStatusOf(terminal.type) as TerminalStatus, events, admission?.consecutiveFailures)
      : null
    // A run that waits or ended needs no owner; whoever resumes it next takes it.
    const columns: RunStateColumns = {
      status: state.status,
      snapshot: storedSnapshot(state.snapshot),
      lastSeq: events.length ? events[events.length - 1].seq : seq,
      at: now,
      vars: JSON.stringify(state.vars),
      finishedAt: terminal ? terminal.at : null,
      error: terminal && state.error ? JSON.stringify(state.error) : null,
      owner: state.status === 'running' ? deps.workerId : null,
    }
    // The events, the run's row and (a success) the workflow's failure count: one statement on Postgres.
    const also = [
      admission
        ? admission.insert(columns)
        : runs.saveStateStatement({ ...columns, runId: meta.runId, workerId: deps.workerId }),
    ]
    if (control === 'reset') also.push(workflows.resetFailuresStatement(meta.workflowId))
    const { recorded, changed } = await deps.recorder.recordWith(
      tx,
      events.map((e) => ({
        organizationId: meta.organizationId,
        workflowId: meta.workflowId,
        runId: meta.runId,
        seq: e.seq,
        type: e.type,
        nodeId: e.nodeId,
        data: { runId: meta.runId, workflowId: meta.workflowId, ...e.data },
        at: e.at,
      })),
      also,
    )
    if (changed[0] === 0) throw new LostOwnership(meta.runId)
    for (const id of consumed) await runInbox.consume(tx, id)
    for (const e of events) await sideRows(tx, e, waited)
    if (control === 'count') {
      const failures = await workflows.countFailure(tx, meta.workflowId)
      if (deps.consecutiveFailuresPause > 0 && failures >= deps.consecutiveFailuresPause)
        recorded.push(...(await pause(tx, 'consecutive_failures')))
    } else if (control === 'disabled_action' || control === 'cu_exhausted') recorded.push(...(await pause(tx, control)))
    return { recorded, waited }
  }

  async function sideRows(tx: SqlExecutor, e: JournalEvent & { at: number }, waitedKeys: Set<string>) {
    const key = e.data.key as string | undefined
    if (e.type === 'node.waiting' && key) {
      const wait = e.data.wait as WaitInfo
      waitedKeys.add(key)
      await clearWaiting(tx, meta.runId, key)
      if (wait.until !== undefined) await insertTimer(tx, key, 'wake', wait.until)
      if (wait.timeoutMs !== undefined) await insertTimer(tx, key, 'timeout', wait.startedAt + wait.timeoutMs)
      if (wait.kind !== 'waiting') return
      await runWaits.add(tx, {
        id: deps.ids.next('tmr'),
        organizationId: meta.organizationId,
        workflowId: meta.workflowId,
        runId: meta.runId,
        nodeId: e.nodeId,
        nodeKey: key,
        triggerType: wait.triggerType ?? null,
        match: wait.match ? JSON.stringify(wait.match) : null,
        at: e.at,
        expiresAt: wait.timeoutMs !== undefined ? wait.startedAt + wait.timeoutMs : null,
      })
    } else if (key && NODE_DONE.has(e.type) && waitedKeys.delete(key)) {
      await clearWaiting(tx, meta.runId, key)
    }
    if (e.type === 'node.succeeded' && e.data.vars) {
      for (const [name, value] of Object.entries(e.data.vars as Record<string, unknown>)) {
        if (!persistLifetime.has(name)) continue
        await workflowVariables.set(tx, {
          workflowId: meta.workflowId,
          name,
          value: JSON.stringify(value ?? null),
          at: e.at,
        })
      }
    }
    if (isTerminalRunEvent(e.type) && waitedKeys.size > 0) {
      waitedKeys.clear()
      await clearWaiting(tx, meta.runId)
    }
  }

  function insertTimer(tx: SqlExecutor, key: string, kind: string, fireAt: number) {
    return runTimers.add(tx, { id: deps.ids.next('tmr'), runId: meta.runId, nodeKey: key, kind, fireAt })
  }

  /**
   * What the end of a live run does to its workflow: a removed action or spent AI credits pause
   * the live version, an automatic run's failure counts (and may pause it), its success resets the
   * count. `failuresRead`: the count as admission read it in this transaction, for a run that ended
   * there (nothing to reset when it read none: a failure counted since is ordered after this success).
   */
  function controlOf(
    ended: TerminalStatus,
    events: readonly JournalEvent[],
    failuresRead?: number,
  ): 'disabled_action' | 'cu_exhausted' | 'count' | 'reset' | null {
    if (!meta.live || ended === 'cancelled') return null
    if (events.some((e) => e.type === 'node.failed' && e.data.code === 'disabled_action')) return 'disabled_action'
    if (events.some((e) => e.type === 'node.failed' && e.data.code === 'cu_exhausted')) return 'cu_exhausted'
    if (!meta.automatic) return null
    if (ended === 'failure') return 'count'
    return failuresRead !== 0 ? 'reset' : null
  }

  /** Pauses the live version for `reason`; the `workflow.paused` event when it was live. */
  async function pause(tx: SqlExecutor, reason: string): Promise<RecordedEvent[]> {
    const changed = await workflows.pauseLive(tx, {
      id: meta.workflowId,
      reason,
      at: deps.clock.now(),
      version: meta.workflowVersion,
    })
    if (changed === 0) return []
    return deps.recorder.record(tx, [workflowPaused(meta, reason, deps.clock.now(), { runId: meta.runId })])
  }

  /** After the commit: the metrics and spans of what the write made durable. */
  function committed(events: readonly NumberedEvent[], snapshot: unknown) {
    if (deps.metrics) observe(deps.metrics, meta, events, snapshot)
    if (deps.tracing && meta.traceparent) trace(deps.tracing, meta, events, snapshot)
  }

  return { write, committed }
}

export function createRunJournal(
  deps: JournalDeps,
  meta: RunMeta,
  read: () => JournalState,
  waitedKeys: Set<string>,
  onLost: () => void,
): RunJournal {
  let seq = meta.lastSeq
  let pending: NumberedEvent[] = []
  let inbox: string[] = []
  let dirty = false
  let running: Promise<void> | null = null
  const idle: Array<() => void> = []
  const writer = journalWriter(deps, meta)

  function schedule() {
    if (running) return
    running = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(loop)
  }

  async function loop() {
    while (dirty) {
      dirty = false
      const events = pending
      const consumed = inbox
      pending = []
      inbox = []
      const state = read()
      try {
        // A run's journal write touches its own rows, and counters with atomic updates: concurrent.
        const { recorded, waited } = await deps.store.write(
          (tx) => writer.write(tx, events, consumed, state, waitedKeys, seq),
          { concurrent: true },
        )
        // The keys of waiting nodes change only once the write committed: a batch may run a write twice.
        waitedKeys.clear()
        for (const key of waited) waitedKeys.add(key)
        publishEvents(deps.bus, recorded)
        writer.committed(events, state.snapshot)
      } catch (error) {
        if (error instanceof LostOwnership || isUniqueViolation(error)) {
          // Fenced: the run moved to another worker, which continues from the stored snapshot.
          pending = []
          inbox = []
          dirty = false
          onLost()
          break
        }
        // The transaction rolled back: keep everything for the next attempt.
        deps.logger.error('could not persist run transition; retrying', { runId: meta.runId, error: String(error) })
        pending = [...events, ...pending]
        inbox = [...consumed, ...inbox]
        dirty = true
        await new Promise((r) => setTimeout(r, 250))
      }
    }
    running = null
    for (const done of idle.splice(0)) done()
  }

  return {
    append(event) {
      pending.push({ ...event, seq: ++seq, at: deps.clock.now() })
      dirty = true
      schedule()
    },
    consumed(inboxId) {
      inbox.push(inboxId)
      dirty = true
      schedule()
    },
    touch() {
      dirty = true
      schedule()
    },
    flushed() {
      if (!running && !dirty) return Promise.resolve()
      if (!running) schedule()
      return new Promise<void>((resolve) => idle.push(resolve))
    },
    get lastSeq() {
      return seq
    },
  }
}
