/**
 * The host services nodes use, built from adapters by the composition root: the guarded HTTP
 * client, the code sandbox, starting another workflow, connector data and logging.
 */
import { ConnectorUnavailableError } from '../core/errors.ts'
import { AiUnavailableError } from '../core/services/ai.ts'
import type { Dispatcher } from '../core/ports/engine.ts'
import type { HttpClient } from '../core/ports/http-client.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Capabilities } from './engine/capabilities.ts'
import type { Sandbox } from './sandbox/index.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { AiMessage, AiTool, AiToolCall } from '../core/ports/ai.ts'
import type { HttpRequest } from '../core/plugin/sdk.ts'
import type { RunState } from './engine/state.ts'
import { createValueMask, noMask, type ValueMask } from '../core/security/value-mask.ts'

export const MAX_WORKFLOW_DEPTH = 10

export interface CapabilityDeps {
  http: HttpClient
  sandbox: Sandbox
  logger: Logger
  clock: Clock
  dispatcher: Dispatcher
  connector?: Capabilities['connector']
  /** Imported x402 endpoints (services/x402-endpoints.ts). */
  x402?: {
    call(
      organizationId: string,
      request: Parameters<Capabilities['x402Request']>[1],
      signal?: AbortSignal,
      idempotencyKey?: string,
    ): ReturnType<Capabilities['x402Request']>
  }
  /** The AI capability (services/ai.ts); without it, prompts fail as "no AI provider". */
  ai?: {
    prompt(
      organizationId: string,
      request: Parameters<Capabilities['prompt']>[1],
      signal?: AbortSignal,
    ): ReturnType<Capabilities['prompt']>
    turn(
      organizationId: string,
      request: { messages: AiMessage[]; tools?: AiTool[]; maxTokens?: number; signal?: AbortSignal },
    ): Promise<{ text: string; toolCalls: AiToolCall[]; credits: number }>
  }
  /** Agent runs' worker sessions (services/agents.ts): the API as the run's session. */
  agentApi?: {
    call(
      runId: string,
      organizationId: string,
      request: Parameters<Capabilities['api']>[1],
    ): ReturnType<Capabilities['api']>
  }
  /** Agent cards (services/cards.ts): one-time handles redeemed at send time. */
  cards?: {
    redeem(
      organizationId: string,
      runId: string,
      handle: string,
      hosts: readonly string[],
    ): Promise<{ number: string; expMonth: number; expYear: number; cvc: string; holderName: string }>
  }
}

/** `{{$card.<handle>.<field>}}` in an outbound request (the engine keeps these templates unresolved). */
const CARD_TEMPLATE = /\{\{\s*\$card\.([A-Za-z0-9_-]+)\.(number|expMonth|expYear|cvc|holderName)\s*\}\}/g

/**
 * Fills in a request's card handles, redeeming each once for the request's host; the request to
 * send and the mask that keeps the cards out of what comes back (its headers and body, in any
 * spacing: security/card-mask.ts). Nothing else sees the details.
 */
async function withCards(
  request: HttpRequest,
  state: RunState,
  cards: NonNullable<CapabilityDeps['cards']>,
): Promise<{ request: HttpRequest; mask: ValueMask }> {
  const texts = [request.url, request.body ?? '', ...Object.values(request.headers ?? {})]
  const handles = new Set<string>()
  for (const text of texts) for (const m of text.matchAll(CARD_TEMPLATE)) handles.add(m[1])
  if (handles.size === 0) return { request, mask: noMask }
  let url: URL
  try {
    url = new URL(request.url.replace(CARD_TEMPLATE, ''))
  } catch {
    throw new Error('a request that carries a card needs a plain URL')
  }
  const details = new Map<string, Readonly<Record<string, string | number>>>()
  for (const handle of handles)
    details.set(handle, {
      ...(await cards.redeem(state.organizationId, state.runId, handle, [url.host, url.hostname])),
    })
  const fill = (text: string) =>
    text.replace(CARD_TEMPLATE, (_, handle: string, field: string) => String(details.get(handle)![field]))
  return {
    request: {
      ...request,
      url: fill(request.url),
      body: request.body === undefined ? undefined : fill(request.body),
      headers: request.headers
        ? Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, fill(v)]))
        : undefined,
    },
    mask: createValueMask([], {
      cards: [...details.values()].map((d) => ({ number: String(d.number), cvc: String(d.cvc) })),
    }),
  }
}

export function createCapabilities(deps: CapabilityDeps): Capabilities {
  return {
    async http(request, signal, state) {
      let mask = noMask
      if (
        state &&
        deps.cards &&
        request.url.concat(request.body ?? '', ...Object.values(request.headers ?? {})).includes('$card.')
      ) {
        ;({ request, mask } = await withCards(request, state, deps.cards))
      }
      const response = await deps.http
        .send({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: request.body,
          timeoutMs: request.timeoutMs,
          signal,
        })
        .catch((error) => {
          // A failure that names the filled-in URL does not carry the card either.
          const message = error instanceof Error ? mask(error.message) : undefined
          throw message === undefined || message === error.message
            ? error
            : Object.assign(new Error(message), { name: error.name })
        })
      // A merchant that echoes the card back (in a header, a Location, the body) does not get it
      // to the model or into the journal; the organization's masks catch it again downstream.
      const { headers, body } = mask({ headers: response.headers, body: response.body })
      return { status: response.status, headers, body, truncated: response.truncated, durationMs: response.durationMs }
    },
    async runCode(code, input, signal) {
      const { output, logs } = await deps.sandbox.runTransform(code, input, undefined, signal)
      return { output, logs }
    },
    async triggerWorkflow(from, workflowId, payload) {
      const depth = Number(from.trigger.headers['x-automaton-depth'] ?? 0) + 1
      if (depth > MAX_WORKFLOW_DEPTH)
        throw new Error(`workflows may start each other at most ${MAX_WORKFLOW_DEPTH} levels deep`)
      const result = await deps.dispatcher
        .dispatch({
          organizationId: from.organizationId,
          workflowId,
          version: 'live',
          automatic: false,
          triggeredBy: 'workflow',
          event: {
            type: 'workflow',
            body: payload,
            headers: {
              'x-automaton-parent-run': from.runId,
              'x-automaton-parent-workflow': from.workflowId,
              'x-automaton-depth': String(depth),
            },
            receivedAt: new Date(deps.clock.now()).toISOString(),
          },
        })
        .catch((error) => {
          throw new Error(
            `could not start workflow ${workflowId}: ${error instanceof Error ? error.message : String(error)}`,
          )
        })
      if (result.action === 'skipped') throw new Error(`workflow ${workflowId} was not started: ${result.reason}`)
      return { runId: result.runId }
    },
    async connector(organizationId, ref, requiredType) {
      if (deps.connector) return deps.connector(organizationId, ref, requiredType)
      throw new ConnectorUnavailableError(
        `this node needs a ${requiredType} connector, and this process has no connectors`,
      )
    },
    async x402Request(state, request, signal, idempotencyKey) {
      if (!deps.x402) throw new Error('this process cannot call x402 endpoints')
      return deps.x402.call(state.organizationId, request, signal, idempotencyKey)
    },
    async modelTurn(state, request, signal) {
      if (!deps.ai) throw new AiUnavailableError()
      const messages: AiMessage[] = request.messages.map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.toolCalls ? { toolCalls: m.toolCalls.map((c) => ({ ...c })) } : {}),
        ...(m.toolCallId ? { toolCallId: m.toolCallId } : {}),
      }))
      const result = await deps.ai.turn(state.organizationId, {
        messages,
        tools: request.tools.map((t) => ({ ...t })),
        maxTokens: request.maxTokens,
        signal,
      })
      return { text: result.text, toolCalls: result.toolCalls, credits: result.credits }
    },
    async api(state, request) {
      if (!deps.agentApi) throw new Error('this process has no worker sessions: only agent runs call the API')
      return deps.agentApi.call(state.runId, state.organizationId, request)
    },
    async prompt(state, request, signal) {
      if (!deps.ai) throw new AiUnavailableError()
      return deps.ai.prompt(state.organizationId, request, signal)
    },
    log(state, nodeId, message, fields) {
      deps.logger.debug('node log', { runId: state.runId, nodeId, message, ...fields })
    },
  }
}
