/**
 * The metrics port over prom-client: one registry per system, served as the Prometheus text
 * exposition, with the process's own metrics (CPU, memory, event-loop lag, GC) in front.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { Gauge as GaugePort, Metrics } from '../../core/ports/metrics.ts'

/** Seconds, from a millisecond to an hour: runs wait for people and timers. */
const LONG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600]
const SHORT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

/** The process's own metrics: collected once, whatever number of systems a process holds. */
let processRegistry: Registry | null = null
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry, prefix: 'automaton_' })
  }
  return processRegistry
}

export function prometheusMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry()
  const withProcess = options.processMetrics !== false
  const registers = [registry]
  const gauges: Array<() => void> = []

  return {
    runsStarted: new Counter({
      name: 'automaton_runs_started_total',
      help: 'Runs admitted by this process, by trigger type and what started them.',
      labelNames: ['trigger_type', 'triggered_by'],
      registers,
    }),
    runsFinished: new Counter({
      name: 'automaton_runs_finished_total',
      help: 'Runs that ended in this process, by final status.',
      labelNames: ['status'],
      registers,
    }),
    runDuration: new Histogram({
      name: 'automaton_run_duration_seconds',
      help: 'From admission to the end of a run, by final status.',
      labelNames: ['status'],
      buckets: LONG_BUCKETS,
      registers,
    }),
    nodeDuration: new Histogram({
      name: 'automaton_node_duration_seconds',
      help: 'One node execution, from start to outcome, by node type and outcome.',
      labelNames: ['node_type', 'outcome'],
      buckets: LONG_BUCKETS,
      registers,
    }),
    journalWrites: new Histogram({
      name: 'automaton_journal_events_per_write',
      help: 'Run events written by one journal transaction.',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers,
    }),
    admissionBacklog: new Gauge({
      name: 'automaton_admission_backlog',
      help: 'Runs admitted and not started yet, as this process sees them.',
      registers,
    }),
    executorConcurrency: new Gauge({
      name: 'automaton_executor_concurrency',
      help: 'Runs this process keeps going at once now: its concurrency, or fewer while its event loop lags.',
      registers,
    }),
    hookDeliveries: new Counter({
      name: 'automaton_hook_deliveries_total',
      help: 'Execution-hook delivery attempts, by outcome.',
      labelNames: ['outcome'],
      registers,
    }),
    hookAttempt: new Histogram({
      name: 'automaton_hook_attempt_seconds',
      help: 'One execution-hook delivery attempt, send to answer.',
      buckets: SHORT_BUCKETS,
      registers,
    }),
    integrationEvents: new Counter({
      name: 'automaton_integration_events_total',
      help: 'Integration webhook events, by plugin and action.',
      labelNames: ['source', 'action'],
      registers,
    }),
    flowControl: new Counter({
      name: 'automaton_flow_control_runs_total',
      help: 'What flow control did with the events of a workflow with a limiting rule, by workflow id and outcome.',
      labelNames: ['workflow_id', 'outcome'],
      registers,
    }),
    aiTokens: new Counter({
      name: 'automaton_ai_tokens_total',
      help: "Tokens the AI provider reported for this process's turns.",
      registers,
    }),
    aiCredits: new Counter({ name: 'automaton_ai_credits_total', help: 'AI credits turns cost.', registers }),
    aiTurns: new Counter({
      name: 'automaton_ai_turns_total',
      help: 'AI turns, by outcome.',
      labelNames: ['outcome'],
      registers,
    }),
    streamSubscribers: new Gauge({
      name: 'automaton_stream_subscribers',
      help: 'Server-sent event streams open on this process.',
      registers,
    }),
    httpRequests: new Counter({
      name: 'automaton_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'automaton_http_request_duration_seconds',
      help: 'HTTP request handling time, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: SHORT_BUCKETS,
      registers,
    }),

    sample(gauge: GaugePort, read: () => number | null | undefined) {
      gauges.push(() => {
        const value = read()
        if (typeof value === 'number') gauge.set(value)
      })
    },
    async text(): Promise<string> {
      for (const update of gauges) update()
      const own = await registry.metrics()
      return withProcess ? `${await processMetrics().metrics()}\n${own}` : own
    },
    contentType: registry.contentType,
  }
}
