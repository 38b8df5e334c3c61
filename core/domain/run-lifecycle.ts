/**
 * A run's lifecycle, in one place: which statuses are active and which end a run, the journal
 * event that stands for each status, and the conditions on `runs.status` the store writes with.
 * The machine emits the events, the journal (its actor's write) and `endRun` (a run ended
 * outside its actor: runtime/engine/run-end.ts) store them; streams, hooks, run control, agents
 * and retention read them through here. It does not write anything.
 */
import type { RunStatus } from './run.ts'
import type { RunEventType } from './run-events.ts'

/** The statuses of a run that has not ended: executing, or waiting for an event or a time. */
export const ACTIVE_STATUSES = ['running', 'waiting'] as const satisfies readonly RunStatus[]
/** The statuses that end a run; a run never leaves one. */
export const TERMINAL_STATUSES = ['success', 'partial', 'failure', 'cancelled'] as const satisfies readonly RunStatus[]
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number]

export const isTerminal = (status: string): status is TerminalStatus =>
  (TERMINAL_STATUSES as readonly string[]).includes(status)

/** The status each run event leaves its run in. */
const STATUS_OF_EVENT: Readonly<Record<RunEventType, RunStatus>> = {
  'run.started': 'running',
  'run.waiting': 'waiting',
  'run.resumed': 'running',
  'run.succeeded': 'success',
  'run.partial': 'partial',
  'run.failed': 'failure',
  'run.cancelled': 'cancelled',
}

/** The event that ends a run in each terminal status. */
export const END_EVENT: Readonly<Record<TerminalStatus, RunEventType>> = {
  success: 'run.succeeded',
  partial: 'run.partial',
  failure: 'run.failed',
  cancelled: 'run.cancelled',
}

/** The status a run event leaves its run in; undefined for any other event. */
export const runStatusOf = (type: string): RunStatus | undefined => STATUS_OF_EVENT[type as RunEventType]

/** The events that end a run, one per terminal status. */
export const TERMINAL_RUN_EVENTS: ReadonlySet<string> = new Set<string>(Object.values(END_EVENT))
export const isTerminalRunEvent = (type: string) => TERMINAL_RUN_EVENTS.has(type)

const sqlIn = (statuses: readonly string[]) => `status IN (${statuses.map((s) => `'${s}'`).join(', ')})`

/** `runs.status` of a run that has not ended, as SQL (the partial index runs_active states the same condition). */
export const ACTIVE_SQL = sqlIn(ACTIVE_STATUSES)
/** `runs.status` of a run that ended, as SQL. */
export const TERMINAL_SQL = sqlIn(TERMINAL_STATUSES)
