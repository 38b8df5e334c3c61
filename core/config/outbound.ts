/** Outbound requests: execution-hook delivery and the private targets hooks and HTTP nodes may reach. */
import { type ConfigEntryOf, list, int, bool, durations } from './parsers.ts'

export interface OutboundConfig {
  /** Milliseconds before each retry of an execution-hook delivery. */
  hookRetrySchedule: number[]
  hookConcurrency: number
  hookTimeoutMs: number
  hookPollMs: number
  hookAllowHttp: boolean
  allowPrivateTargets: string[]
}

export const OUTBOUND_ENTRIES: readonly ConfigEntryOf<OutboundConfig>[] = [
  {
    env: 'AUTOMATON_HOOK_RETRY_SCHEDULE',
    key: 'hookRetrySchedule',
    default: '0,5s,5m,30m,2h,5h,10h,10h',
    description:
      'Delays before each retry of a failed execution-hook delivery (`ms`, `s`, `m`, `h`, `d`; a bare number is milliseconds). The first attempt is immediate; past the end of the list the last delay repeats.',
    parse: durations,
  },
  {
    env: 'AUTOMATON_HOOK_CONCURRENCY',
    key: 'hookConcurrency',
    default: '1024',
    description: 'Execution-hook deliveries one process sends at once.',
    parse: int(1, 100000),
  },
  {
    env: 'AUTOMATON_HOOK_TIMEOUT_MS',
    key: 'hookTimeoutMs',
    default: '15000',
    description: 'Time a hook receiver has to answer a delivery before the attempt counts as failed.',
    parse: int(100, 300000),
  },
  {
    env: 'AUTOMATON_HOOK_POLL_MS',
    key: 'hookPollMs',
    default: '1000',
    description: 'How often the delivery worker looks for due retries and for deliveries other processes left behind.',
    parse: int(10, 600000),
  },
  {
    env: 'AUTOMATON_HOOK_ALLOW_HTTP',
    key: 'hookAllowHttp',
    default: 'false',
    description:
      'Accept plain `http://` execution-hook URLs on any host; otherwise only hosts listed in `AUTOMATON_ALLOW_PRIVATE_TARGETS` may use http.',
    parse: bool,
  },
  {
    env: 'AUTOMATON_ALLOW_PRIVATE_TARGETS',
    key: 'allowPrivateTargets',
    default: '',
    description: 'Comma-separated CIDRs or host names that hooks and HTTP nodes may reach although private.',
    parse: list,
  },
]
