/** The engine: schedules, admission and the backlog, workers, plugins and the situation universe. */
import { type ConfigEntryOf, nullable, int, bool, onOff } from './parsers.ts'

export interface EngineConfig {
  minScheduleIntervalMs: number
  pollMinIntervalMs: number
  scheduleGraceMs: number
  consecutiveFailuresPause: number
  finishAtAdmission: boolean
  workerConcurrency: number
  executionLagTargetMs: number
  maxBacklog: number
  maxBacklogOrgShare: number
  fairShareLine: number
  workerTimeoutMs: number
  heartbeatMs: number
  pluginsDir: string | null
  situationUniverse: boolean
}

export const ENGINE_ENTRIES: readonly ConfigEntryOf<EngineConfig>[] = [
  {
    env: 'AUTOMATON_MIN_SCHEDULE_INTERVAL_MS',
    key: 'minScheduleIntervalMs',
    default: '60000',
    description: 'Smallest interval between two ticks of a schedule, checked at publish.',
    parse: int(0),
  },
  {
    env: 'AUTOMATON_POLL_MIN_INTERVAL_MS',
    key: 'pollMinIntervalMs',
    default: '10000',
    description:
      'Shortest interval between two polls of one polling trigger (`feed-item`, plugins’ `poll`); a trigger asking for less polls at this interval.',
    parse: int(1000),
  },
  {
    env: 'AUTOMATON_SCHEDULE_GRACE_MS',
    key: 'scheduleGraceMs',
    default: '60000',
    description:
      "How late a schedule tick may fire and still be on time (at most half the gap to the next tick); later ticks were missed and follow the trigger's `catchUp`.",
    parse: int(0),
  },
  {
    env: 'AUTOMATON_CONSECUTIVE_FAILURES_PAUSE',
    key: 'consecutiveFailuresPause',
    default: '5',
    description: 'Failed automatic runs in a row that pause a live workflow (`consecutive_failures`); 0 never pauses.',
    parse: int(0),
  },
  {
    env: 'AUTOMATON_FINISH_AT_ADMISSION',
    key: 'finishAtAdmission',
    default: 'true',
    description:
      "Runs made only of pure nodes (`log`, `set-variable`, `if`, `for-each`, `filter`, `pluck`, plugins' pure actions) run to their end in the transaction that admits them, in every process that admits runs, API processes included; `false` hands every run to the executor (the workers, when scaled out).",
    parse: bool,
  },
  {
    env: 'AUTOMATON_WORKER_CONCURRENCY',
    key: 'workerConcurrency',
    default: '256',
    description: 'Runs one process executes at once, at most (see `AUTOMATON_EXECUTION_LAG_TARGET_MS`).',
    parse: int(1, 100000),
  },
  {
    env: 'AUTOMATON_EXECUTION_LAG_TARGET_MS',
    key: 'executionLagTargetMs',
    default: '15',
    description:
      'While the event loop of `serve` (which executes runs beside answering requests) lags more than this many milliseconds, it keeps fewer runs going at once (down to an eighth of `AUTOMATON_WORKER_CONCURRENCY`), so requests are still answered quickly under overload and the excess waits in the backlog or is refused with 429. Workers keep their full concurrency. `0` turns it off. See operations.md.',
    parse: int(0, 10000),
  },
  {
    env: 'AUTOMATON_MAX_BACKLOG',
    key: 'maxBacklog',
    default: '100000',
    description:
      'Runs admitted and not started yet that the installation holds; past it, webhooks, integration events and API runs answer 429 with `Retry-After` (nothing accepted is dropped). See operations.md.',
    parse: int(1),
  },
  {
    env: 'AUTOMATON_MAX_BACKLOG_ORG_SHARE',
    key: 'maxBacklogOrgShare',
    default: '50',
    description:
      'The share of `AUTOMATON_MAX_BACKLOG`, in percent, one organization may hold, so that one tenant cannot fill it for the others.',
    parse: int(1, 100),
  },
  {
    env: 'AUTOMATON_FAIR_SHARE_LINE',
    key: 'fairShareLine',
    default: '1000',
    description:
      'With NATS: runs of one organization (times its fair share) an API process puts in the work queue at once; the rest wait in the database for their turn, so that other organizations are not held behind a flood. See runs.md, "Fairness between organizations".',
    parse: int(1, 1000000),
  },
  {
    env: 'AUTOMATON_WORKER_TIMEOUT_MS',
    key: 'workerTimeoutMs',
    default: '15000',
    description: 'A worker silent this long counts as dead; other workers take its runs over.',
    parse: int(1000),
  },
  {
    env: 'AUTOMATON_HEARTBEAT_MS',
    key: 'heartbeatMs',
    default: '3000',
    description: 'How often a worker refreshes its heartbeat and sweeps for runs nobody executes.',
    parse: int(100),
  },
  {
    env: 'AUTOMATON_PLUGINS_DIR',
    key: 'pluginsDir',
    default: '',
    description:
      'Directory of external plugins (`.js`, `.mjs`, `.ts` files, or folders with an index file) loaded at start; see docs/plugins.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_SITUATION_UNIVERSE',
    key: 'situationUniverse',
    default: 'on',
    description:
      'The ticker universe of the situation trigger: `on` loads the shipped list at first start (replace it with `automaton universe import`); `off` answers 503 on `GET /v1/situation/universe` and checks no symbols.',
    parse: onOff,
  },
]
