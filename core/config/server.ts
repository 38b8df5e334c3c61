/** The HTTP server: where it listens, TLS, proxies, request and stream limits, logs, metrics and traces. */
import { type ConfigEntryOf, str, nullable, int, oneOf, optionalPort, cidrs, optionalHttpUrl } from './parsers.ts'

export interface ServerConfig {
  port: number
  host: string
  /** The address people and platforms reach this server at (AUTOMATON_PUBLIC_URL), without a trailing slash. */
  publicUrl: string | null
  maxBodyBytes: number
  tlsCertFile: string | null
  tlsKeyFile: string | null
  trustedProxies: string[]
  workerPort: number | null
  shutdownGraceMs: number
  /** The memory, in MB, the JavaScript engine sizes its garbage collection for (0: the machine's; see main.ts). */
  gcMemoryMb: number
  logLevel: 'debug' | 'info' | 'warn' | 'error'
  metricsToken: string | null
  otlpEndpoint: string | null
  sseHeartbeatMs: number
  sseRunWaitMs: number
  sseMaxStreamsPerKey: number
  sseBufferBytes: number
}

export const SERVER_ENTRIES: readonly ConfigEntryOf<ServerConfig>[] = [
  { env: 'PORT', key: 'port', default: '8080', description: 'HTTP port of `serve`.', parse: int(0, 65535) },
  { env: 'HOST', key: 'host', default: '0.0.0.0', description: 'Address `serve` listens on.', parse: str },
  {
    env: 'AUTOMATON_PUBLIC_URL',
    key: 'publicUrl',
    default: '',
    description:
      'The URL people and platforms reach this server at (`https://automaton.example.com`): the webhook URLs plugins register with platforms (`onEnable`) and the OAuth2 redirect URI are built from it.',
    parse: (raw, name) => optionalHttpUrl(raw, name)?.replace(/\/+$/, '') ?? null,
  },
  {
    env: 'AUTOMATON_MAX_BODY_BYTES',
    key: 'maxBodyBytes',
    default: '1048576',
    description: 'Largest request body accepted; larger bodies get 413.',
    parse: int(1024),
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
    env: 'AUTOMATON_SHUTDOWN_GRACE_MS',
    key: 'shutdownGraceMs',
    default: '10000',
    description: 'Time given to in-flight requests and runs on SIGTERM before the process exits.',
    parse: int(0),
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
    env: 'AUTOMATON_LOG_LEVEL',
    key: 'logLevel',
    default: 'info',
    description: '`debug`, `info`, `warn` or `error`; logs are JSON lines on stderr.',
    parse: oneOf('debug', 'info', 'warn', 'error'),
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
    env: 'AUTOMATON_OTLP_ENDPOINT',
    key: 'otlpEndpoint',
    default: '',
    description:
      'Base URL of an OpenTelemetry collector (OTLP/HTTP, e.g. `http://collector:4318`): spans of runs and node executions go to `<url>/v1/traces`; empty: no export.',
    parse: nullable,
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
]
