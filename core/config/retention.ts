/** Retention: how long finished runs are kept, and how often the pruner deletes the rest. */
import { type ConfigEntryOf, int, retention } from './parsers.ts'

export interface RetentionConfig {
  /** Milliseconds finished runs are kept; 0 keeps them for ever. */
  runRetentionMs: number
  pruneIntervalMs: number
}

export const RETENTION_ENTRIES: readonly ConfigEntryOf<RetentionConfig>[] = [
  {
    env: 'AUTOMATON_RUN_RETENTION',
    key: 'runRetentionMs',
    default: '30d',
    description:
      'How long finished runs (with their journal, hook deliveries and stored webhook events) are kept: whole minutes, hours, days or weeks (`90m`, `12h`, `30d`, `2w`); `0` keeps them for ever. Organizations and workflows may set their own; see operations.md.',
    parse: retention,
  },
  {
    env: 'AUTOMATON_PRUNE_INTERVAL_MS',
    key: 'pruneIntervalMs',
    default: '60000',
    description: 'Time between two passes of the pruner that deletes runs past their retention.',
    parse: int(1000),
  },
]
