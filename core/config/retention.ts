/** Retention: how long finished runs are kept, and how often the pruner deletes the rest. */
import { type ConfigEntryOf, int, nullable, optionalHttpUrl, retention } from './parsers.ts'

export interface RetentionConfig {
  /** Milliseconds finished runs are kept; 0 keeps them for ever. */
  runRetentionMs: number
  pruneIntervalMs: number
  /** Milliseconds audit records are kept; 0 keeps them for ever. */
  auditRetentionMs: number
  /** The JSON-lines file audit records are appended to; null: none. */
  auditFile: string | null
  /** The URL audit records are POSTed to (signed like execution hooks); null: none. */
  auditEndpoint: string | null
  /** The `whsec_…` secret that signs what is POSTed to `auditEndpoint`. */
  auditEndpointSecret: string | null
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
  {
    env: 'AUTOMATON_AUDIT_RETENTION',
    key: 'auditRetentionMs',
    default: '365d',
    description:
      'How long audit records are kept (`90d`, `52w`; `0` for ever). The pruner deletes the oldest and keeps a checkpoint, so `audit verify` starts there; see audit.md.',
    parse: retention,
  },
  {
    env: 'AUTOMATON_AUDIT_FILE',
    key: 'auditFile',
    default: '',
    description:
      'A file the process that delivers execution hooks appends every audit record to, one JSON object a line, in order per organization, each once (a cursor file beside it survives a crash); empty: none. See audit.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AUDIT_ENDPOINT',
    key: 'auditEndpoint',
    default: '',
    description:
      "A URL (a SIEM's collector) the process that delivers execution hooks POSTs every audit record to, in batches in order per organization, signed like execution hooks with `AUTOMATON_AUDIT_ENDPOINT_SECRET`, retried until it answers 2xx (at least once); empty: none. See audit.md.",
    parse: optionalHttpUrl,
  },
  {
    env: 'AUTOMATON_AUDIT_ENDPOINT_SECRET',
    key: 'auditEndpointSecret',
    default: '',
    description:
      "The `whsec_…` secret (base64 after the prefix, as execution hooks' secrets) that signs the POSTs to `AUTOMATON_AUDIT_ENDPOINT`.",
    parse: nullable,
  },
]
