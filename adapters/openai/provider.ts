/**
 * The AI port over any OpenAI-compatible chat-completions endpoint, through the `openai` client:
 * it decodes the server-sent events (comment lines, `[DONE]`), retries a 429 or 5xx honouring
 * `Retry-After`, and surfaces typed errors. Tool-call fragments are merged here by `index`, and
 * usage is taken from the usage-only chunk a server sends when asked (`include_usage`).
 */
import OpenAI from 'openai'
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions'
import {
  AiProviderError,
  estimateTokens,
  type AiMessage,
  type AiProvider,
  type AiStreamEvent,
  type AiToolCall,
  type AiTurnRequest,
  type AiUsage,
} from '../../core/ports/ai.ts'

export interface OpenAiCompatibleOptions {
  baseUrl: string
  apiKey?: string
  model: string
  /** Retries of a 429 / 5xx / connection failure before any output. Default 2. */
  maxRetries?: number
  /** Whole request, stream included. Default 120 000 ms. */
  timeoutMs?: number
}

export function createOpenAiCompatibleProvider(options: OpenAiCompatibleOptions): AiProvider {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    // Local servers (Ollama, LM Studio) need no key; the client insists on one.
    apiKey: options.apiKey || 'unused',
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 120_000,
  })
  return {
    model: options.model,
    streamTurn: (request) => streamTurn(client, options.model, request),
  }
}

async function* streamTurn(
  client: OpenAI,
  defaultModel: string,
  request: AiTurnRequest,
): AsyncGenerator<AiStreamEvent> {
  let outputStarted = false
  let text = ''
  let finishReason: string | null = null
  let usage: AiUsage | null = null
  const fragments = new Map<number, { id: string; name: string; arguments: string }>()
  try {
    const stream = await client.chat.completions.create(
      {
        model: request.model ?? defaultModel,
        messages: request.messages.map(toWire),
        ...(request.tools?.length ? { tools: request.tools.map(toWireTool) } : {}),
        ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: request.signal },
    )
    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      if (chunk.usage) usage = readUsage(chunk.usage)
      // Some servers send `choices: null` on the usage-only chunk.
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {}
        if (typeof delta.content === 'string' && delta.content.length > 0) {
          text += delta.content
          outputStarted = true
          yield { type: 'delta', text: delta.content }
        }
        for (const call of delta.tool_calls ?? []) {
          const index = call.index ?? 0
          const known = fragments.get(index) ?? { id: '', name: '', arguments: '' }
          if (call.id) known.id = call.id
          if (call.function?.name) known.name += call.function.name
          if (call.function?.arguments) known.arguments += call.function.arguments
          fragments.set(index, known)
        }
        if (choice.finish_reason) finishReason = choice.finish_reason
      }
    }
  } catch (error) {
    throw toProviderError(error, outputStarted)
  }
  const toolCalls: AiToolCall[] = [...fragments.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: call.arguments }))
  if (toolCalls.some((call) => call.name === '')) {
    throw new AiProviderError('bad_response', 'The model sent a tool call without a name.', outputStarted)
  }
  const measured = usage ?? estimate(request.messages, text, toolCalls)
  yield { type: 'done', text, toolCalls, usage: measured, finishReason }
}

function toWire(message: AiMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content }
    case 'user':
      return { role: 'user', content: message.content }
    case 'tool':
      return { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' }
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      }
  }
}

function toWireTool(tool: {
  name: string
  description: string
  parameters: Record<string, unknown>
}): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }
}

function readUsage(raw: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }): AiUsage {
  const promptTokens = raw.prompt_tokens ?? 0
  const completionTokens = raw.completion_tokens ?? 0
  return { promptTokens, completionTokens, totalTokens: raw.total_tokens ?? promptTokens + completionTokens }
}

function estimate(messages: AiMessage[], text: string, toolCalls: AiToolCall[]): AiUsage {
  const promptTokens = messages.reduce((sum, message) => sum + estimateTokens(message.content), 0)
  const completionTokens = estimateTokens(text + toolCalls.map((call) => call.name + call.arguments).join(''))
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens }
}

function toProviderError(error: unknown, outputStarted: boolean): AiProviderError {
  if (error instanceof AiProviderError) return error
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    if (error.status === 429) {
      return new AiProviderError(
        'rate_limited',
        'The model provider is rate limiting; try again later.',
        outputStarted,
        retryAfterMs(error.headers),
      )
    }
    if (error.status >= 500)
      return new AiProviderError('unavailable', `The model provider answered ${error.status}.`, outputStarted)
    return new AiProviderError(
      'bad_response',
      `The model provider refused the request (${error.status}): ${error.message}`,
      outputStarted,
    )
  }
  if (error instanceof OpenAI.APIUserAbortError)
    return new AiProviderError('interrupted', 'The turn was cancelled.', outputStarted)
  if (error instanceof OpenAI.APIConnectionError)
    return new AiProviderError('unavailable', 'The model provider cannot be reached.', outputStarted)
  const message = error instanceof Error ? error.message : String(error)
  return new AiProviderError(
    outputStarted ? 'interrupted' : 'bad_response',
    `The model stream broke off: ${message}`,
    outputStarted,
  )
}

function retryAfterMs(headers: unknown): number | null {
  const get = (name: string): string | null => {
    if (headers && typeof (headers as Headers).get === 'function') return (headers as Headers).get(name)
    const value = (headers as Record<string, string> | undefined)?.[name]
    return typeof value === 'string' ? value : null
  }
  const value = get('retry-after')
  if (value === null) return null
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null
}
