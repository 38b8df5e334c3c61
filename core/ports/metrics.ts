/**
 * Metrics as a port: the counters, gauges and histograms the services and the engine record into,
 * and the exposition `GET /metrics` serves. Each process counts what it did itself (the API
 * process its admissions and requests, a worker its runs and hook deliveries); the collector adds
 * them up. Labels are bounded: trigger and node types come from the plugin catalog, statuses and
 * outcomes from fixed lists, routes from the router's patterns; never a run, workflow or
 * organization id, except flow control's series, one per workflow that has flowControl. The
 * series' names (in each instrument's comment) are the contract dashboards rely on; an adapter
 * (Prometheus today, in adapters/prometheus/) keeps them.
 *
 * It does not aggregate across processes, and it does not trace: spans are the tracing port's.
 */

/** Label values by label name: every label of the instrument, each a string. */
export type Labels<L extends string> = { readonly [K in L]: string }

export interface Counter {
  inc(value?: number): void
}

export interface LabelledCounter<L extends string> {
  inc(labels: Labels<L>, value?: number): void
}

export interface Gauge {
  set(value: number): void
  inc(value?: number): void
  dec(value?: number): void
}

export interface Histogram {
  /** One observation, in the instrument's unit (seconds for durations). */
  observe(value: number): void
}

export interface LabelledHistogram<L extends string> {
  observe(labels: Labels<L>, value: number): void
}

export interface Metrics {
  /** `automaton_runs_started_total`: runs admitted by this process. */
  readonly runsStarted: LabelledCounter<'trigger_type' | 'triggered_by'>
  /** `automaton_runs_finished_total`: runs that ended in this process, by final status. */
  readonly runsFinished: LabelledCounter<'status'>
  /** `automaton_run_duration_seconds`: admission to the end of a run (buckets up to an hour). */
  readonly runDuration: LabelledHistogram<'status'>
  /** `automaton_node_duration_seconds`: one node execution, start to outcome. */
  readonly nodeDuration: LabelledHistogram<'node_type' | 'outcome'>
  /** `automaton_journal_events_per_write`: run events written by one journal transaction. */
  readonly journalWrites: Histogram
  /** `automaton_admission_backlog`: runs admitted and not started yet, as this process sees them. */
  readonly admissionBacklog: Gauge
  /** `automaton_executor_concurrency`: runs this process keeps going at once now. */
  readonly executorConcurrency: Gauge
  /** `automaton_hook_deliveries_total`: execution-hook delivery attempts, by outcome. */
  readonly hookDeliveries: LabelledCounter<'outcome'>
  /** `automaton_hook_attempt_seconds`: one execution-hook delivery attempt, send to answer. */
  readonly hookAttempt: Histogram
  /** `automaton_integration_events_total`: integration webhook events, by plugin and action. */
  readonly integrationEvents: LabelledCounter<'source' | 'action'>
  /**
   * `automaton_flow_control_runs_total`: what flow control did with the events of a workflow with
   * a limiting rule (concurrency, throttle, rateLimit, debounce; not a priority alone), by workflow
   * id and outcome (admitted, waiting, debounced, skipped, refused); never a key.
   */
  readonly flowControl: LabelledCounter<'workflow_id' | 'outcome'>
  /** `automaton_ai_tokens_total`: tokens the AI provider reported for this process's turns. */
  readonly aiTokens: Counter
  /** `automaton_ai_credits_total`: AI credits turns cost. */
  readonly aiCredits: Counter
  /** `automaton_ai_turns_total`: AI turns, by outcome. */
  readonly aiTurns: LabelledCounter<'outcome'>
  /** `automaton_stream_subscribers`: server-sent event streams open on this process. */
  readonly streamSubscribers: Gauge
  /** `automaton_http_requests_total`: HTTP requests answered, by method, route pattern and status. */
  readonly httpRequests: LabelledCounter<'method' | 'route' | 'status'>
  /** `automaton_http_request_duration_seconds`: HTTP request handling time, by method and route pattern. */
  readonly httpDuration: LabelledHistogram<'method' | 'route'>

  /** Sets a gauge from `read` each time the metrics are collected (a null or undefined reading leaves it). */
  sample(gauge: Gauge, read: () => number | null | undefined): void
  /** The exposition `GET /metrics` answers, with the process's own metrics (CPU, memory, GC) when the adapter has them. */
  text(): Promise<string>
  /** The exposition's content type. */
  readonly contentType: string
}
