/**
 * What an action handler is given while it runs (ActionContext) and when its wait ends
 * (ResumeContext), and the directives it may return to steer the run. Types only: the host
 * (runtime/engine/node-runner.ts) and the test kit (runtime/testing/) implement them.
 */

import type { PluginCrypto } from './lifecycle.ts'

/** The connector data an action receives when its definition does not say which connector type. */
export type ConnectorData = Readonly<Record<string, unknown>>

export interface RunInfo {
  readonly id: string
  readonly workflowId: string
  readonly workflowVersion: number
  readonly organizationId: string
}

/** An outbound HTTP request through the host's guarded client (private targets refused). */
export interface HttpRequest {
  method: string
  url: string
  headers?: Record<string, string>
  body?: string
  timeoutMs?: number
}
export interface HttpResponse {
  status: number
  headers: Record<string, string>
  body: string
  truncated: boolean
  durationMs: number
}

/** A wait a node asks for; the run is persisted and its memory released until it ends. */
/** A message of an agent's transcript (the OpenAI-compatible chat shape). */
export interface AgentMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool'
  readonly content: string
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[]
  readonly toolCallId?: string
}

/** A tool an agent's model may call: a catalog action with its payload schema as parameters. */
export interface AgentTool {
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, unknown>
}

export interface WaitRequest {
  /** Resume at this time (milliseconds since the epoch). */
  readonly until?: number
  /** Resume on an event of this trigger type whose fields match `match`. */
  readonly triggerType?: string
  readonly match?: Readonly<Record<string, unknown>>
  /** Give up after this long; the node then resumes through `timeout`. */
  readonly timeoutMs?: number
  /** Anything the node wants back when it resumes. */
  readonly state?: unknown
}

declare const directive: unique symbol
/** What a handler returns to steer the run instead of (or besides) a plain result. */
export type Directive =
  | { readonly [directive]: true; readonly kind: 'branch'; readonly branch: string; readonly result: unknown }
  | { readonly [directive]: true; readonly kind: 'wait'; readonly wait: WaitRequest }
  | { readonly [directive]: true; readonly kind: 'loop'; readonly items: readonly unknown[] }

/**
 * The context of `run(ctx)`. `P` is the payload type (from the payload schema), `K` the
 * connector data type (from the connector definition the action names).
 */
export interface ActionContext<P, K = ConnectorData> {
  /** The node's payload with every expression resolved (fields listed in `raw` stay as written). */
  readonly payload: P
  readonly run: RunInfo
  readonly node: { readonly id: string; readonly key: string; readonly attempt: number }
  /** Stable across re-executions of the same attempt: (run, node, attempt). */
  readonly idempotencyKey: string
  /** Aborted on cancel, on timeout and when the process stops. */
  readonly signal: AbortSignal
  /**
   * The decrypted data of the node's connector, when the action requires one (else null).
   * Secret values are masked wherever they would otherwise show up in the run record.
   */
  readonly connector: K | null
  log(message: string, fields?: Record<string, unknown>): void
  /** The engine's clock, in milliseconds since the epoch. */
  now(): number
  /** HMAC, hashes, constant-time comparison and random bytes, as webhooks have them. */
  readonly crypto: PluginCrypto
  /**
   * Outbound HTTP through the server's SSRF guard. Every request is aborted with `signal` (on
   * cancel, timeout or shutdown) without your passing it; a refused private target names
   * AUTOMATON_ALLOW_PRIVATE_TARGETS in its message.
   */
  readonly http: { send(request: HttpRequest): Promise<HttpResponse> }
  /** Resolves expressions in a value, with extra roots such as `$item`. */
  evaluate(value: unknown, extra?: Record<string, unknown>): unknown
  /** Evaluates an `if`-style condition, with extra roots such as `$item`. */
  evaluateCondition(condition: unknown, extra?: Record<string, unknown>): boolean
  readonly vars: { get(name: string): unknown; set(name: string, value: unknown): void }
  /** Host services that built-in nodes use; plugins may use them too. */
  readonly services: {
    runCode(code: string, input: unknown): Promise<{ output: unknown; logs: string[] }>
    triggerWorkflow(workflowId: string, payload: Record<string, unknown>): Promise<{ runId: string }>
    /**
     * One answer of the operator's AI model, paid from the organization's AI credits. With
     * `schema` (a JSON Schema) the model is asked for JSON and `json` holds the parsed answer.
     * Fails when no provider is configured; when the credits run out the node fails with code
     * `cu_exhausted` and the workflow's live version pauses.
     */
    prompt(request: {
      prompt: string
      system?: string
      schema?: Record<string, unknown>
      maxTokens?: number
    }): Promise<{ text: string; json?: unknown; tokensUsed: number }>
    /**
     * Calls one of the organization's imported x402 endpoints, paying from its default wallet up
     * to the endpoint's maxAllowedPrice (more fails and pays nothing).
     */
    /**
     * For agents: one model turn with tools, paid from the organization's credits. Messages and
     * tool calls in the OpenAI-compatible shape.
     */
    modelTurn(request: {
      messages: AgentMessage[]
      tools: AgentTool[]
      maxTokens?: number
    }): Promise<{ text: string; toolCalls: { id: string; name: string; arguments: string }[]; credits: number }>
    /**
     * For agents: runs a catalog action (one without a connector) as a tool, with `args` as its
     * payload, through its own handler and the host's guards. Waiting and branching actions cannot be tools.
     */
    runTool(type: string, args: Record<string, unknown>): Promise<unknown>
    /** For agents: calls this installation's `/v1` API with the run's worker session (only its agent type's permissions). */
    api(request: {
      method: string
      path: string
      body?: unknown
      /** The ETag a write was read at (sent as If-Match): a resource changed since answers 412. */
      ifMatch?: string
    }): Promise<{ status: number; body: unknown; etag?: string }>
    x402Request(request: {
      endpointId: string
      queryParams?: Record<string, string>
      body?: unknown
      headers?: Record<string, string>
    }): Promise<{
      status: number
      body: unknown
      payment: { transaction: string | null; amount: string; asset: string } | null
    }>
  }
  branch(branch: string, result: unknown): Directive
  wait(request: WaitRequest): Directive
  loop(items: readonly unknown[]): Directive
}

/** The context of `resume(ctx, data)` and `timeout(ctx)` after a wait. */
export interface ResumeContext<P> {
  readonly payload: P
  readonly run: RunInfo
  readonly node: { readonly id: string; readonly key: string }
  /** What the wait was started with. */
  readonly wait: WaitRequest & { readonly startedAt: number }
  now(): number
  branch(branch: string, result: unknown): Directive
}

export type Awaitable<T> = T | Promise<T>
