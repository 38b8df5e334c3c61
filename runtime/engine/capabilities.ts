/**
 * Host services a node can use, given to the node runner by the composition root: the guarded
 * HTTP client, the code sandbox, starting another workflow, connector data, logging. The engine
 * itself never reaches the network or the store through these.
 */
import type { OpenedConnector } from '../../core/domain/connector.ts'
import type { HttpRequest, HttpResponse } from '../../core/plugin/sdk.ts'
import type { RunState } from './state.ts'

export interface Capabilities {
  /** An outbound request; with the run's state, `{{$card.<handle>.<field>}}` in it is filled in at send time. */
  http(request: HttpRequest, signal: AbortSignal, state?: RunState): Promise<HttpResponse>
  runCode(code: string, input: unknown, signal: AbortSignal): Promise<{ output: unknown; logs: string[] }>
  triggerWorkflow(from: RunState, workflowId: string, payload: Record<string, unknown>): Promise<{ runId: string }>
  /**
   * The decrypted data of the connector a node uses, and its secret values (for masking). Throws
   * a message for the node's error when the connector is missing, ambiguous or of another type.
   */
  connector(
    organizationId: string,
    ref: { type?: string; id?: string } | undefined,
    requiredType: string,
  ): Promise<OpenedConnector>
  log(state: RunState, nodeId: string, message: string, fields?: Record<string, unknown>): void
  /** A call of an imported x402 endpoint, paid from the run's organization's default wallet. */
  x402Request(
    state: RunState,
    request: Parameters<import('../../core/plugin/sdk.ts').ActionContext<unknown>['services']['x402Request']>[0],
    signal: AbortSignal,
    idempotencyKey: string,
  ): ReturnType<import('../../core/plugin/sdk.ts').ActionContext<unknown>['services']['x402Request']>
  /** An agent's model turn with tools, paid from the run's organization's credits. */
  modelTurn(
    state: RunState,
    request: Parameters<AgentServices['modelTurn']>[0],
    signal: AbortSignal,
  ): ReturnType<AgentServices['modelTurn']>
  /** The `/v1` API with the run's worker session (agent runs only). */
  api(state: RunState, request: Parameters<AgentServices['api']>[0]): ReturnType<AgentServices['api']>
  /** A prompt to the AI model, paid from the run's organization's credits. */
  prompt(
    state: RunState,
    request: { prompt: string; system?: string; schema?: Record<string, unknown>; maxTokens?: number },
    signal: AbortSignal,
  ): Promise<{ text: string; json?: unknown; tokensUsed: number }>
}

type AgentServices = import('../../core/plugin/sdk.ts').ActionContext<unknown>['services']
