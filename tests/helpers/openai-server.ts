/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1. Each request takes the next
 * script in order; a script is a stream of raw chunks with the quirks real servers show: text
 * deltas, tool-call fragments split across chunks, a usage-only chunk (with `choices: null` or
 * `[]`), SSE comment lines, a mid-stream disconnect, or a 429 with `Retry-After`.
 */
export type ScriptStep =
  | { chunk: Record<string, unknown> }
  | { comment: string }
  /** Breaks the connection; after `when` settles, so the bytes sent before it reached the client. */
  | { disconnect: true; when?: Promise<unknown> }

export type Script =
  | { steps: ScriptStep[]; done?: boolean }
  | { status: number; body?: unknown; headers?: Record<string, string> }

export interface ScriptedOpenAi {
  url: string
  /** Request bodies as received, parsed. */
  requests: Array<Record<string, unknown>>
  queue(...scripts: Script[]): void
  /** Drops the scripts no request took. */
  clear(): void
  stop(): Promise<void>
}

export function textDelta(text: string): ScriptStep {
  return { chunk: chunk([{ index: 0, delta: { content: text }, finish_reason: null }]) }
}

export function toolFragment(index: number, part: { id?: string; name?: string; arguments?: string }): ScriptStep {
  const call: Record<string, unknown> = { index }
  if (part.id) {
    call.id = part.id
    call.type = 'function'
  }
  const fn: Record<string, string> = {}
  if (part.name !== undefined) fn.name = part.name
  if (part.arguments !== undefined) fn.arguments = part.arguments
  call.function = fn
  return { chunk: chunk([{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]) }
}

export function finish(reason: string): ScriptStep {
  return { chunk: chunk([{ index: 0, delta: {}, finish_reason: reason }]) }
}

export function usageOnly(prompt: number, completion: number, choices: null | [] = null): ScriptStep {
  return {
    chunk: {
      ...chunk(choices),
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    },
  }
}

/** A model turn that calls one tool, its arguments split across three chunks. */
export function toolTurn(
  name: string,
  args: unknown,
  opts: { text?: string; tokens?: [number, number]; id?: string } = {},
): Script {
  const json = JSON.stringify(args)
  const third = Math.ceil(json.length / 3)
  return {
    steps: [
      ...(opts.text ? [textDelta(opts.text)] : []),
      toolFragment(0, { id: opts.id ?? `call_${name}`, name, arguments: json.slice(0, third) }),
      toolFragment(0, { arguments: json.slice(third, 2 * third) }),
      toolFragment(0, { arguments: json.slice(2 * third) }),
      finish('tool_calls'),
      usageOnly(...(opts.tokens ?? [1500, 500])),
    ],
  }
}
/** A model turn that answers text, in two deltas after a comment line. */
export const textTurn = (text: string, tokens: [number, number] = [800, 200]): Script => ({
  steps: [
    { comment: 'thinking' },
    textDelta(text.slice(0, 3)),
    textDelta(text.slice(3)),
    finish('stop'),
    usageOnly(...tokens, []),
  ],
})

function chunk(choices: unknown): Record<string, unknown> {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 1_767_225_600,
    model: 'scripted',
    choices,
  }
}

/** The environment of a system whose AI features use `model`, each organization given `credits`. */
export const scriptedModelEnv = (model: ScriptedOpenAi, credits: number) => ({
  AUTOMATON_AI_BASE_URL: model.url,
  AUTOMATON_AI_MODEL: 'scripted',
  AUTOMATON_AI_DEFAULT_CREDITS: String(credits),
})

export function startScriptedOpenAi(): ScriptedOpenAi {
  const scripts: Script[] = []
  const requests: Array<Record<string, unknown>> = []
  const encoder = new TextEncoder()
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      if (request.method !== 'POST' || !url.pathname.endsWith('/chat/completions'))
        return new Response('not found', { status: 404 })
      requests.push((await request.json()) as Record<string, unknown>)
      const script = scripts.shift()
      if (!script)
        return Response.json({ error: { message: 'no script queued', type: 'server_error' } }, { status: 500 })
      if ('status' in script) {
        return Response.json(script.body ?? { error: { message: 'scripted failure', type: 'server_error' } }, {
          status: script.status,
          headers: script.headers,
        })
      }
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          for (const step of script.steps) {
            if ('disconnect' in step) {
              await step.when
              controller.error(new Error('scripted disconnect'))
              return
            }
            if ('comment' in step) controller.enqueue(encoder.encode(`: ${step.comment}\n\n`))
            else controller.enqueue(encoder.encode(`data: ${JSON.stringify(step.chunk)}\n\n`))
            await Bun.sleep(0)
          }
          if (script.done !== false) controller.enqueue(encoder.encode('data: [DONE]\n\n'))
          controller.close()
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    queue: (...next) => {
      scripts.push(...next)
    },
    clear: () => {
      scripts.length = 0
    },
    stop: async () => {
      await server.stop(true)
    },
  }
}
