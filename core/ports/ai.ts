/**
 * A chat model behind the AI capability: any OpenAI-compatible chat-completions endpoint
 * (Ollama, vLLM, LM Studio, hosted APIs). One streamed turn at a time; the caller sees text
 * deltas as they arrive and, at the end, whole tool calls (fragments already merged) and usage.
 */

export type AiRole = 'system' | 'user' | 'assistant' | 'tool'

export interface AiToolCall {
  id: string
  name: string
  /** The arguments as the model wrote them (JSON text, not yet parsed or checked). */
  arguments: string
}

export interface AiMessage {
  role: AiRole
  content: string
  /** On an assistant message that asked for tools. */
  toolCalls?: AiToolCall[]
  /** On a tool message: which call it answers. */
  toolCallId?: string
}

export interface AiTool {
  name: string
  description: string
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>
}

export interface AiTurnRequest {
  messages: AiMessage[]
  tools?: AiTool[]
  /** Overrides the configured model. */
  model?: string
  maxTokens?: number
  signal?: AbortSignal
}

export interface AiUsage {
  promptTokens: number
  completionTokens: number
  totalTokens: number
}

export type AiStreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'done'; text: string; toolCalls: AiToolCall[]; usage: AiUsage; finishReason: string | null }

export type AiFailureKind = 'rate_limited' | 'unavailable' | 'bad_response' | 'interrupted'

/**
 * A turn that failed. `outputStarted` tells whether any text reached the caller before the
 * failure: a failure before any output is refunded in full.
 */
export class AiProviderError extends Error {
  override name = 'AiProviderError'
  constructor(
    readonly kind: AiFailureKind,
    message: string,
    readonly outputStarted: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
  }
}

export interface AiProvider {
  readonly model: string
  /** Streams one assistant turn. Throws AiProviderError; never yields after `done`. */
  streamTurn(request: AiTurnRequest): AsyncIterable<AiStreamEvent>
}

/** Rough token count when a server sends no usage: about four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}
