/**
 * The AI capability: one model turn at a time, paid from the organization's credit ledger.
 *
 * A turn reserves, before the provider is called, what it can cost at most (the prompt's tokens,
 * estimated, plus the completion's cap), so concurrent turns never spend more than the balance;
 * afterwards it settles by the tokens the provider reports (the unused part comes back). A turn
 * that failed before any output is refunded in full; one that failed midway pays for what came.
 * 1 credit = 1,000 tokens, rounded up.
 */
import { AppError } from '../errors.ts'
import type { Metrics } from '../ports/metrics.ts'
import {
  AiProviderError,
  estimateTokens,
  type AiProvider,
  type AiToolCall,
  type AiTurnRequest,
  type AiUsage,
} from '../ports/ai.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { aiCredits, creditsForTokens } from '../store/ai-credits.ts'

/** No provider is configured: 503 naming the settings. */
export class AiUnavailableError extends AppError {
  constructor() {
    super(
      503,
      'no AI provider is configured: the operator sets AUTOMATON_AI_BASE_URL and AUTOMATON_AI_MODEL (see docs/ai.md)',
    )
  }
}

/** The organization's credits do not cover the turn: 402; an AI node that meets it pauses its workflow (`cu_exhausted`). */
export class CreditsExhaustedError extends AppError {
  readonly code = 'cu_exhausted'
  constructor() {
    super(
      402,
      'the organization has no AI credits left for this turn; an operator grants more with `automaton credits grant`',
    )
  }
}

export interface TurnResult {
  turnId: string
  text: string
  toolCalls: AiToolCall[]
  usage: AiUsage
  finishReason: string | null
  /** Credits the turn cost. */
  credits: number
}

export interface PromptRequest {
  prompt: string
  system?: string
  /** A JSON Schema the answer must follow: the model is asked for JSON, and the answer parsed. */
  schema?: Record<string, unknown>
  maxTokens?: number
}

const DEFAULT_MAX_TOKENS = 2048

/** The text of a model's JSON answer, without the code fences models like to add. */
export function jsonAnswer(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)
  const body = (fenced ? fenced[1] : text).trim()
  const start = body.search(/[[{]/)
  return JSON.parse(start > 0 ? body.slice(start) : body)
}

/** The AI capability as services and nodes use it: model turns paid from the organization's credits. */
export interface AiService {
  /** Whether a provider is configured. */
  readonly configured: boolean
  /** The configured provider's model, null without one. */
  readonly model: string | null
  /** Throws 503 when no provider is configured. */
  requireConfigured(): void
  /** One model turn, reserved from the organization's credits and settled by its usage; `onDelta` follows its text. */
  turn(organizationId: string, request: AiTurnRequest, onDelta?: (text: string) => void): Promise<TurnResult>
  /** The `ai-prompt` node: one prompt, one answer (parsed as JSON when a schema is given). */
  prompt(
    organizationId: string,
    request: PromptRequest,
    signal?: AbortSignal,
  ): Promise<{ text: string; json?: unknown; tokensUsed: number }>
}

export function createAiService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  provider: AiProvider | null
  metrics?: Metrics
}): AiService {
  const { store, clock, ids } = deps

  function provider(): AiProvider {
    if (!deps.provider) throw new AiUnavailableError()
    return deps.provider
  }

  /** One streamed turn, paid from `organizationId`'s credits; `onDelta` sees the text as it comes. */
  async function turn(
    organizationId: string,
    request: AiTurnRequest,
    onDelta?: (text: string) => void,
  ): Promise<TurnResult> {
    const model = provider()
    const turnId = ids.next('job')
    const maxTokens = request.maxTokens ?? DEFAULT_MAX_TOKENS
    const promptTokens = estimateTokens(
      request.messages.map((m) => m.content).join('\n') + JSON.stringify(request.tools ?? []),
    )
    const reserve = Math.max(1, creditsForTokens(promptTokens + maxTokens))
    const reserved = await store.write((tx) =>
      aiCredits.reserve(tx, { id: ids.next('job'), organizationId, turnId, amount: reserve, at: clock.now() }),
    )
    if (!reserved) {
      deps.metrics?.aiTurns.inc({ outcome: 'no_credits' })
      throw new CreditsExhaustedError()
    }
    let text = ''
    try {
      for await (const event of model.streamTurn({ ...request, maxTokens })) {
        if (event.type === 'delta') {
          text += event.text
          onDelta?.(event.text)
          continue
        }
        const tokens = event.usage.totalTokens || promptTokens + estimateTokens(event.text)
        const credits = await store.write((tx) =>
          aiCredits.settle(tx, { id: ids.next('job'), organizationId, turnId, tokensUsed: tokens, at: clock.now() }),
        )
        deps.metrics?.aiTurns.inc({ outcome: 'success' })
        deps.metrics?.aiTokens.inc(tokens)
        deps.metrics?.aiCredits.inc(credits)
        return {
          turnId,
          text: event.text,
          toolCalls: event.toolCalls,
          usage: { ...event.usage, totalTokens: tokens },
          finishReason: event.finishReason,
          credits,
        }
      }
      throw new AiProviderError(
        'bad_response',
        'the provider ended the stream without finishing the turn',
        text.length > 0,
      )
    } catch (error) {
      const started = error instanceof AiProviderError ? error.outputStarted : text.length > 0
      deps.metrics?.aiTurns.inc({ outcome: started ? 'broken_off' : 'refunded' })
      await store
        .write((tx) =>
          started
            ? aiCredits
                .settle(tx, {
                  id: ids.next('job'),
                  organizationId,
                  turnId,
                  tokensUsed: promptTokens + estimateTokens(text),
                  at: clock.now(),
                })
                .then(() => undefined)
            : aiCredits.refund(tx, { id: ids.next('job'), organizationId, turnId, at: clock.now() }),
        )
        .catch((settleError) =>
          deps.logger.error('could not settle a failed AI turn', { turnId, error: String(settleError) }),
        )
      throw error
    }
  }

  return {
    get configured() {
      return deps.provider !== null
    },
    get model() {
      return deps.provider?.model ?? null
    },
    /** Throws 503 when no provider is configured. */
    requireConfigured() {
      provider()
    },
    turn,

    /** The `ai-prompt` node: one prompt, one answer (parsed as JSON when a schema is given). */
    async prompt(
      organizationId: string,
      request: PromptRequest,
      signal?: AbortSignal,
    ): Promise<{ text: string; json?: unknown; tokensUsed: number }> {
      const system = [
        request.system ?? 'You are a precise assistant inside an automated workflow. Answer the prompt directly.',
        request.schema
          ? `Answer with one JSON value, and nothing else, that follows this JSON Schema:\n${JSON.stringify(request.schema)}`
          : '',
      ]
        .filter(Boolean)
        .join('\n\n')
      const result = await turn(organizationId, {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: request.prompt },
        ],
        maxTokens: request.maxTokens ?? 1024,
        signal,
      })
      if (!request.schema) return { text: result.text, tokensUsed: result.usage.totalTokens }
      let json: unknown
      try {
        json = jsonAnswer(result.text)
      } catch {
        throw new Error(`the model did not answer JSON: ${result.text.slice(0, 200)}`)
      }
      return { text: result.text, json, tokensUsed: result.usage.totalTokens }
    },
  }
}
