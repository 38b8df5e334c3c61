/**
 * Configuration: every setting the service reads, with its default and meaning.
 * `loadConfig` takes the environment as a plain record (main.ts passes the process's),
 * so tests build configurations without touching globals. docs/configuration.md lists the
 * same entries; a test keeps the two in step.
 */
import { parseDurationList } from './duration.ts'
import { type ChainConfig, parseChains } from './ports/chain.ts'
import { parseRetention } from './domain/retention.ts'
import { parseCidr } from './security/ip-ranges.ts'

export interface Config {
  port: number
  host: string
  dataDir: string
  databaseUrl: string | null
  natsUrl: string | null
  natsStream: string
  masterKey: string | null
  bootstrapKey: string | null
  maxBodyBytes: number
  sqliteSynchronous: 'full' | 'normal'
  /** The memory, in MB, the JavaScript engine sizes its garbage collection for (0: the machine's; see main.ts). */
  gcMemoryMb: number
  pgPoolSize: number
  logLevel: 'debug' | 'info' | 'warn' | 'error'
  minScheduleIntervalMs: number
  scheduleGraceMs: number
  /** Milliseconds before each retry of an execution-hook delivery. */
  hookRetrySchedule: number[]
  hookConcurrency: number
  hookTimeoutMs: number
  hookPollMs: number
  hookAllowHttp: boolean
  allowPrivateTargets: string[]
  pluginsDir: string | null
  consecutiveFailuresPause: number
  chatappSigningSecret: string | null
  crosschainApiKey: string | null
  workerConcurrency: number
  executionLagTargetMs: number
  finishAtAdmission: boolean
  maxBacklog: number
  situationUniverse: boolean
  sseRunWaitMs: number
  sseMaxStreamsPerKey: number
  maxBacklogOrgShare: number
  shutdownGraceMs: number
  workerTimeoutMs: number
  heartbeatMs: number
  sseHeartbeatMs: number
  sseBufferBytes: number
  /** Milliseconds finished runs are kept; 0 keeps them for ever. */
  runRetentionMs: number
  pruneIntervalMs: number
  tlsCertFile: string | null
  tlsKeyFile: string | null
  trustedProxies: string[]
  masterKeyPrevious: string | null
  metricsToken: string | null
  chains: ChainConfig[]
  x402RelayerKey: string | null
  x402MaxImportPrice: number
  x402SettleTimeoutMs: number
  x402FacilitatorUrl: string | null
  agentsDisabled: string[]
  disclosureTtlMs: number
  otlpEndpoint: string | null
  workerPort: number | null
  aiBaseUrl: string | null
  aiApiKey: string | null
  aiModel: string | null
  aiDefaultCredits: number
  operatorOrganization: string
  paginationBypassKey: string | null
  sessionIdleMs: number
  sessionMaxAgeMs: number
  invitationTtlMs: number
  passwordHashMemoryKib: number
}

type Parser<T> = (raw: string, name: string) => T

export interface ConfigEntry {
  readonly env: string
  readonly key: keyof Config
  readonly default: string
  readonly description: string
  readonly parse: Parser<unknown>
}

const str: Parser<string> = (raw) => raw
const nullable: Parser<string | null> = (raw) => (raw === '' ? null : raw)
const optionalHttpUrl: Parser<string | null> = (raw, name) => {
  if (raw === '') return null
  if (!/^https?:\/\/[^\s/]+/.test(raw)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`)
  return raw
}
const list: Parser<string[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> =>
  (raw, name) => {
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`)
    }
    return n
  }
const bool: Parser<boolean> = (raw, name) => {
  if (/^(true|1|yes)$/i.test(raw)) return true
  if (/^(false|0|no)$/i.test(raw)) return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}
const onOff: Parser<boolean> = (raw, name) => {
  if (/^(on|true|1|yes)$/i.test(raw)) return true
  if (/^(off|false|0|no)$/i.test(raw)) return false
  throw new ConfigError(`${name} must be on or off, got "${raw}"`)
}
const durations: Parser<number[]> = (raw, name) => {
  try {
    const list = parseDurationList(raw)
    if (list.length === 0) throw new Error('it is empty')
    return list
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`)
  }
}
/** One duration (`300ms`, `5m`, a bare number of milliseconds), at least `min` ms. */
const duration =
  (min: number): Parser<number> =>
  (raw, name) => {
    let ms: number
    try {
      const list = parseDurationList(raw)
      if (list.length !== 1) throw new Error('one duration is expected')
      ms = list[0]
    } catch (error) {
      throw new ConfigError(`${name}: ${(error as Error).message}`)
    }
    if (ms < min) throw new ConfigError(`${name} must be at least ${min} ms, got "${raw}"`)
    return ms
  }
const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw, name) => {
    const v = raw.toLowerCase() as T
    if (!values.includes(v)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`)
    return v
  }

const retention: Parser<number> = (raw, name) => {
  const ms = parseRetention(raw)
  if (ms === null)
    throw new ConfigError(`${name} must be 0 or whole minutes, hours, days or weeks (90m, 12h, 30d, 2w), got "${raw}"`)
  return ms
}
const chainList: Parser<ChainConfig[]> = (raw) => {
  try {
    return parseChains(raw)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}
const optionalPort: Parser<number | null> = (raw, name) => (raw === '' ? null : int(0, 65535)(raw, name))
/** A positive span of whole minutes, hours, days or weeks. */
const span: Parser<number> = (raw, name) => {
  const ms = parseRetention(raw)
  if (ms === null || ms === 0)
    throw new ConfigError(`${name} must be whole minutes, hours, days or weeks (90m, 12h, 30d, 2w), got "${raw}"`)
  return ms
}
const cidrs: Parser<string[]> = (raw, name) => {
  const out = list(raw, name)
  for (const entry of out)
    if (!parseCidr(entry)) throw new ConfigError(`${name}: "${entry}" is not an IP address or CIDR range`)
  return out
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

export const CONFIG_ENTRIES: readonly ConfigEntry[] = [
  { env: 'PORT', key: 'port', default: '8080', description: 'HTTP port of `serve`.', parse: int(0, 65535) },
  { env: 'HOST', key: 'host', default: '0.0.0.0', description: 'Address `serve` listens on.', parse: str },
  {
    env: 'AUTOMATON_DATA_DIR',
    key: 'dataDir',
    default: './data',
    description: 'Directory for the embedded SQLite database and the generated master key.',
    parse: str,
  },
  {
    env: 'AUTOMATON_DATABASE_URL',
    key: 'databaseUrl',
    default: '',
    description: '`postgres://…` selects the Postgres store; empty uses SQLite in the data dir.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_NATS_URL',
    key: 'natsUrl',
    default: '',
    description: '`nats://…` selects the NATS bus (JetStream); empty uses the in-process bus.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_NATS_STREAM',
    key: 'natsStream',
    default: 'AUTOMATON_WORK',
    description: 'Name of the JetStream stream that carries work to the workers (one per deployment).',
    parse: str,
  },
  {
    env: 'AUTOMATON_MASTER_KEY',
    key: 'masterKey',
    default: '',
    description:
      '32 bytes, base64, that encrypt secrets at rest. Empty: generated into the data dir on first start (every process of one deployment must share it).',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_BOOTSTRAP_KEY',
    key: 'bootstrapKey',
    default: '',
    description: 'A raw `svcsk_…` key; at start it ensures the organization `default` with an owner key of this value.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_MAX_BODY_BYTES',
    key: 'maxBodyBytes',
    default: '1048576',
    description: 'Largest request body accepted; larger bodies get 413.',
    parse: int(1024),
  },
  {
    env: 'AUTOMATON_SQLITE_SYNCHRONOUS',
    key: 'sqliteSynchronous',
    default: 'full',
    description: '`full` survives power loss; `normal` survives a process crash only, and is faster.',
    parse: oneOf('full', 'normal'),
  },
  {
    env: 'AUTOMATON_PG_POOL_SIZE',
    key: 'pgPoolSize',
    default: '10',
    description: 'Connections each process opens to Postgres.',
    parse: int(2, 1000),
  },
  {
    env: 'AUTOMATON_LOG_LEVEL',
    key: 'logLevel',
    default: 'info',
    description: '`debug`, `info`, `warn` or `error`; logs are JSON lines on stderr.',
    parse: oneOf('debug', 'info', 'warn', 'error'),
  },
  {
    env: 'AUTOMATON_MIN_SCHEDULE_INTERVAL_MS',
    key: 'minScheduleIntervalMs',
    default: '60000',
    description: 'Smallest interval between two ticks of a schedule, checked at publish.',
    parse: int(0),
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
  {
    env: 'AUTOMATON_PLUGINS_DIR',
    key: 'pluginsDir',
    default: '',
    description:
      'Directory of external plugins (`.js`, `.mjs`, `.ts` files, or folders with an index file) loaded at start; see docs/plugins.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_CONSECUTIVE_FAILURES_PAUSE',
    key: 'consecutiveFailuresPause',
    default: '5',
    description: 'Failed automatic runs in a row that pause a live workflow (`consecutive_failures`); 0 never pauses.',
    parse: int(0),
  },
  {
    env: 'AUTOMATON_CHATAPP_SIGNING_SECRET',
    key: 'chatappSigningSecret',
    default: '',
    description:
      'Signing secret of the chat platform app that posts to `/v1/integrations/chatapp/events`; empty: that endpoint refuses every request (401).',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_CROSSCHAIN_API_KEY',
    key: 'crosschainApiKey',
    default: '',
    description:
      'The `x-api-key` the cross-chain payment service sends with its callback (`/v1/internal/crosschain/order-completed`); empty: the callback refuses every request (401).',
    parse: nullable,
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
    env: 'AUTOMATON_SITUATION_UNIVERSE',
    key: 'situationUniverse',
    default: 'on',
    description:
      'The ticker universe of the situation trigger: `on` loads the shipped list at first start (replace it with `automaton universe import`); `off` answers 503 on `GET /v1/situation/universe` and checks no symbols.',
    parse: onOff,
  },
  {
    env: 'AUTOMATON_GC_MEMORY_MB',
    key: 'gcMemoryMb',
    default: '512',
    description:
      "The memory the JavaScript engine of `serve` and `worker` sizes its garbage collection for, in MB: under load, garbage is collected long before the heap nears it instead of piling up toward the machine's memory (Bun only). `0` leaves the engine's default. See operations.md.",
    parse: int(0, 1048576),
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
    env: 'AUTOMATON_SHUTDOWN_GRACE_MS',
    key: 'shutdownGraceMs',
    default: '10000',
    description: 'Time given to in-flight requests and runs on SIGTERM before the process exits.',
    parse: int(0),
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
    env: 'AUTOMATON_SSE_HEARTBEAT_MS',
    key: 'sseHeartbeatMs',
    default: '15000',
    description: 'Interval of the heartbeat comment on server-sent event streams.',
    parse: int(100),
  },
  {
    env: 'AUTOMATON_SSE_RUN_WAIT_MS',
    key: 'sseRunWaitMs',
    default: '60000',
    description:
      'How long the stream of a run id that does not exist yet waits for the run before it ends (a run id you chose may be followed before the run starts).',
    parse: int(100),
  },
  {
    env: 'AUTOMATON_SSE_MAX_STREAMS_PER_KEY',
    key: 'sseMaxStreamsPerKey',
    default: '1024',
    description: 'Streams one API key may hold open at once; one more answers 429.',
    parse: int(1, 100000),
  },
  {
    env: 'AUTOMATON_SSE_BUFFER_BYTES',
    key: 'sseBufferBytes',
    default: '1048576',
    description: 'Bytes a stream may hold for a client that does not read; beyond it the client is disconnected.',
    parse: int(1024),
  },
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
    env: 'AUTOMATON_TLS_CERT_FILE',
    key: 'tlsCertFile',
    default: '',
    description:
      'PEM certificate (chain) file: with `AUTOMATON_TLS_KEY_FILE`, `serve` answers HTTPS on `PORT`; both files are read again on SIGHUP.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_TLS_KEY_FILE',
    key: 'tlsKeyFile',
    default: '',
    description: 'PEM private key file of `AUTOMATON_TLS_CERT_FILE`.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_TRUSTED_PROXIES',
    key: 'trustedProxies',
    default: '',
    description:
      'Comma-separated addresses or CIDRs of reverse proxies: only requests from them have their client address taken from `X-Forwarded-For` and their scheme from `X-Forwarded-Proto`.',
    parse: cidrs,
  },
  {
    env: 'AUTOMATON_WORKER_PORT',
    key: 'workerPort',
    default: '',
    description:
      'A port on which `automaton worker` answers `/healthz`, `/readyz` and `/metrics` (a worker serves no API); empty: none.',
    parse: optionalPort,
  },
  {
    env: 'AUTOMATON_CHAINS',
    key: 'chains',
    default: '',
    description:
      'EVM chains, a JSON array of `{ chainId, name, rpcUrl, network }` (what `automaton devnet` prints fits); empty: none. Wallet balances, contract deployments and x402 use them.',
    parse: chainList,
  },
  {
    env: 'AUTOMATON_X402_RELAYER_KEY',
    key: 'x402RelayerKey',
    default: '',
    description:
      'The private key (0x…) that settles x402 payments on chain, paying their gas; empty: paid workflows answer 503 after verifying a payment, settling nothing. See x402.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AGENTS_DISABLED',
    key: 'agentsDisabled',
    default: '',
    description:
      'Agent types (comma-separated, e.g. `researcher`) that cannot be started: 403, and left out of `GET /v1/agent-runs/agents`. See agents.md.',
    parse: list,
  },
  {
    env: 'AUTOMATON_DISCLOSURE_TTL',
    key: 'disclosureTtlMs',
    default: '5m',
    description:
      'How long a card disclosure handle (`POST /v1/agent-cards/{id}/disclosure`) can be redeemed, once (`30s`, `5m`). See agents.md.',
    parse: duration(1000),
  },
  {
    env: 'AUTOMATON_X402_FACILITATOR_URL',
    key: 'x402FacilitatorUrl',
    default: '',
    description:
      'An external x402 facilitator (`/verify`, `/settle`, as the reference facilitator serves them) that verifies and settles payments instead of the relayer; empty: the relayer settles. See x402.md.',
    parse: optionalHttpUrl,
  },
  {
    env: 'AUTOMATON_X402_SETTLE_TIMEOUT_MS',
    key: 'x402SettleTimeoutMs',
    default: '20000',
    description:
      'How long a paid request waits for its settlement to be mined before answering 409 "not confirmed yet" (the same payment sent again answers its result); unfinished settlements are reconciled from the chain.',
    parse: int(100),
  },
  {
    env: 'AUTOMATON_X402_MAX_IMPORT_PRICE',
    key: 'x402MaxImportPrice',
    default: '1000000',
    description:
      "The most `POST /v1/x402-endpoints/import` pays for its one call, in the token's smallest unit (1,000,000 is 1 USDC).",
    parse: int(0),
  },
  {
    env: 'AUTOMATON_OTLP_ENDPOINT',
    key: 'otlpEndpoint',
    default: '',
    description:
      'Base URL of an OpenTelemetry collector (OTLP/HTTP, e.g. `http://collector:4318`): spans of runs and node executions go to `<url>/v1/traces`; empty: no export.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_METRICS_TOKEN',
    key: 'metricsToken',
    default: '',
    description:
      'A bearer token `GET /metrics` requires; empty: the metrics are open (keep the port private, or set this).',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AI_BASE_URL',
    key: 'aiBaseUrl',
    default: '',
    description:
      'Base URL of an OpenAI-compatible chat-completions API (`http://localhost:11434/v1` for Ollama, a vLLM or LM Studio server, a hosted API); empty: the AI endpoints answer 503 and AI nodes fail. See ai.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AI_API_KEY',
    key: 'aiApiKey',
    default: '',
    description: 'API key sent to `AUTOMATON_AI_BASE_URL` (local servers need none).',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AI_MODEL',
    key: 'aiModel',
    default: '',
    description:
      'Model name asked of the AI provider (`llama3.1`, `qwen2.5-coder` …); required with `AUTOMATON_AI_BASE_URL`.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AI_DEFAULT_CREDITS',
    key: 'aiDefaultCredits',
    default: '0',
    description:
      'AI credits a new organization starts with (1 credit = 1,000 tokens); `automaton credits grant` adds more.',
    parse: int(0),
  },
  {
    env: 'AUTOMATON_OPERATOR_ORG',
    key: 'operatorOrganization',
    default: 'default',
    description:
      'The organization (name or id) whose owners moderate public templates and manage tags (`template:moderate`); other organizations never hold that permission.',
    parse: str,
  },
  {
    env: 'AUTOMATON_PAGINATION_BYPASS_KEY',
    key: 'paginationBypassKey',
    default: '',
    description:
      'A secret that lets `GET /v1/tags` answer more than 1,000 tags at once (`pagination_bypass_key`, up to 10,000); empty: no bypass.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_SESSION_IDLE',
    key: 'sessionIdleMs',
    default: '12h',
    description: 'A sign-in session unused this long ends (`90m`, `12h`, `2d`).',
    parse: span,
  },
  {
    env: 'AUTOMATON_SESSION_MAX_AGE',
    key: 'sessionMaxAgeMs',
    default: '30d',
    description: 'A sign-in session ends this long after sign-in, however much it is used.',
    parse: span,
  },
  {
    env: 'AUTOMATON_INVITATION_TTL',
    key: 'invitationTtlMs',
    default: '7d',
    description: 'How long an invitation into an organization can be accepted.',
    parse: span,
  },
  {
    env: 'AUTOMATON_PASSWORD_HASH_MEMORY_KIB',
    key: 'passwordHashMemoryKib',
    default: '65536',
    description:
      'Memory of one argon2id password hash, in KiB (at least the 19,456 OWASP recommends); more makes guessing costlier and sign-in slower.',
    parse: int(19456, 4194304),
  },
  {
    env: 'AUTOMATON_MASTER_KEY_PREVIOUS',
    key: 'masterKeyPrevious',
    default: '',
    description:
      'The master key being replaced, during a key rotation: secrets sealed with it still open, and it keeps sealing until `automaton master-key rotate` has switched to `AUTOMATON_MASTER_KEY`.',
    parse: nullable,
  },
]

export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const out: Record<string, unknown> = {}
  for (const entry of CONFIG_ENTRIES) {
    const raw = env[entry.env]
    out[entry.key] = entry.parse(raw === undefined ? entry.default : raw.trim(), entry.env)
  }
  if (out.aiBaseUrl && !out.aiModel)
    throw new ConfigError('AUTOMATON_AI_BASE_URL needs AUTOMATON_AI_MODEL: the model to ask for')
  return out as unknown as Config
}

/**
 * An operator setting by its environment variable name (what a webhook's `auth.setting` names):
 * the value of a configuration entry when the name is one, else the variable itself; null when
 * unset or empty.
 */
export function settingOf(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string | null {
  const entry = CONFIG_ENTRIES.find((e) => e.env === name)
  const value = entry ? config[entry.key] : env[name]?.trim()
  return typeof value === 'string' && value !== '' ? value : null
}
