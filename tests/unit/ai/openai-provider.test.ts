import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createOpenAiCompatibleProvider } from '../../../adapters/openai/provider.ts'
import { AiProviderError, type AiProvider, type AiStreamEvent } from '../../../core/ports/ai.ts'
import {
  finish,
  startScriptedOpenAi,
  textDelta,
  toolFragment,
  usageOnly,
  type ScriptedOpenAi,
} from '../../helpers/openai-server.ts'

let server: ScriptedOpenAi
let provider: AiProvider

beforeAll(() => {
  server = startScriptedOpenAi()
  provider = createOpenAiCompatibleProvider({ baseUrl: server.url, model: 'scripted-model', maxRetries: 1 })
})
afterAll(() => server.stop())

async function collect(events: AsyncIterable<AiStreamEvent>): Promise<AiStreamEvent[]> {
  const seen: AiStreamEvent[] = []
  for await (const event of events) seen.push(event)
  return seen
}

describe('OpenAI-compatible provider', () => {
  test('streams text deltas, skips comment lines and takes usage from a usage-only chunk with choices: null', async () => {
    server.queue({
      steps: [{ comment: 'keep-alive' }, textDelta('Hel'), textDelta('lo'), finish('stop'), usageOnly(12, 3, null)],
    })
    const events = await collect(provider.streamTurn({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text)).toEqual(['Hel', 'lo'])
    const done = events.at(-1)
    expect(done).toEqual({
      type: 'done',
      text: 'Hello',
      toolCalls: [],
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
      finishReason: 'stop',
    })
    const sent = server.requests.at(-1)!
    expect(sent.model).toBe('scripted-model')
    expect(sent.stream).toBe(true)
    expect(sent.stream_options).toEqual({ include_usage: true })
  })

  test('merges tool-call fragments split across chunks by index', async () => {
    server.queue({
      steps: [
        toolFragment(0, { id: 'call_a', name: 'propose_', arguments: '' }),
        toolFragment(1, { id: 'call_b', name: 'run_test', arguments: '{}' }),
        toolFragment(0, { name: 'workflow', arguments: '{"name":' }),
        toolFragment(0, { arguments: '"Daily"}' }),
        finish('tool_calls'),
        usageOnly(40, 20, []),
      ],
    })
    const events = await collect(
      provider.streamTurn({
        messages: [{ role: 'user', content: 'build' }],
        tools: [{ name: 'propose_workflow', description: 'propose', parameters: { type: 'object' } }],
      }),
    )
    const done = events.at(-1) as Extract<AiStreamEvent, { type: 'done' }>
    expect(done.toolCalls).toEqual([
      { id: 'call_a', name: 'propose_workflow', arguments: '{"name":"Daily"}' },
      { id: 'call_b', name: 'run_test', arguments: '{}' },
    ])
    expect(JSON.parse(done.toolCalls[0]!.arguments)).toEqual({ name: 'Daily' })
    expect(done.finishReason).toBe('tool_calls')
    expect((server.requests.at(-1)!.tools as unknown[]).length).toBe(1)
  })

  test('a server that sends no usage gets an estimate, never zero', async () => {
    server.queue({ steps: [textDelta('twelve chars'), finish('stop')] })
    const done = (await collect(provider.streamTurn({ messages: [{ role: 'user', content: 'abcdefgh' }] }))).at(
      -1,
    ) as Extract<AiStreamEvent, { type: 'done' }>
    expect(done.usage).toEqual({ promptTokens: 2, completionTokens: 3, totalTokens: 5 })
  })

  test('a 429 with Retry-After is retried, then the turn succeeds', async () => {
    const before = server.requests.length
    server.queue(
      { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down', type: 'rate_limit' } } },
      { steps: [textDelta('ok'), finish('stop'), usageOnly(1, 1)] },
    )
    const done = (await collect(provider.streamTurn({ messages: [{ role: 'user', content: 'x' }] }))).at(-1) as Extract<
      AiStreamEvent,
      { type: 'done' }
    >
    expect(done.text).toBe('ok')
    expect(server.requests.length - before).toBe(2)
  })

  test('429 after the retries is a rate_limited error before any output, with the Retry-After', async () => {
    server.queue({ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '0' } })
    const error = await collect(provider.streamTurn({ messages: [{ role: 'user', content: 'x' }] })).catch((e) => e)
    expect(error).toBeInstanceOf(AiProviderError)
    expect(error.kind).toBe('rate_limited')
    expect(error.outputStarted).toBe(false)
    expect(error.retryAfterMs).toBe(0)
  })

  test('a mid-stream disconnect after output is an error that says output started', async () => {
    // The break waits until the client has the partial text, as a real connection drop after output would.
    const received = Promise.withResolvers<void>()
    server.queue({ steps: [textDelta('partial'), { disconnect: true, when: received.promise }] })
    const seen: AiStreamEvent[] = []
    const error = await (async () => {
      for await (const event of provider.streamTurn({ messages: [{ role: 'user', content: 'x' }] })) {
        seen.push(event)
        received.resolve()
      }
    })().catch((e) => e)
    expect(seen).toEqual([{ type: 'delta', text: 'partial' }])
    expect(error).toBeInstanceOf(AiProviderError)
    expect(error.outputStarted).toBe(true)
  })

  test('a 400 from the server is a bad_response naming the status', async () => {
    server.queue({ status: 400, body: { error: { message: 'model not found', type: 'invalid_request_error' } } })
    const error = await collect(provider.streamTurn({ messages: [{ role: 'user', content: 'x' }] })).catch((e) => e)
    expect(error.kind).toBe('bad_response')
    expect(error.message).toContain('400')
    expect(error.outputStarted).toBe(false)
  })
})
