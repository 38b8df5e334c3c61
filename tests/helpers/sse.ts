/** Reads server-sent events from a Response body, frame by frame. */
export interface SseEvent {
  id: string
  event: string
  data: any
}

export interface SseReader {
  /** The next event, skipping comments; null when the stream ended. */
  next(timeoutMs?: number): Promise<SseEvent | null>
  /** Events until `stop` holds for one (included) or the stream ends. */
  until(stop: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent[]>
  /**
   * Waits for the next comment `text` (`: heartbeat`); events read meanwhile are kept for next().
   * Throws when the stream ends first.
   */
  comment(text: string, timeoutMs?: number): Promise<void>
  comments: string[]
  cancel(): Promise<void>
}

export function readSse(response: Response): SseReader {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const comments: string[] = []
  let ended = false

  async function frame(deadline: number, timeoutMs: number): Promise<string | null> {
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end >= 0) {
        const text = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        return text
      }
      if (ended) return null
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no SSE frame within ${timeoutMs} ms; buffered: ${buffer.slice(0, 200)}`)
      const chunk = await Promise.race([reader.read(), Bun.sleep(left).then(() => 'timeout' as const)])
      if (chunk === 'timeout') continue
      if (chunk.done) ended = true
      else buffer += decoder.decode(chunk.value, { stream: true })
    }
  }

  /** The next frame as an event or as its comments; null when the stream ended. */
  async function read(deadline: number, timeoutMs: number): Promise<SseEvent | { comments: string[] } | null> {
    const text = await frame(deadline, timeoutMs)
    if (text === null) return null
    const fields: Record<string, string> = {}
    const said: string[] = []
    let isComment = true
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) {
        said.push(line.slice(1).trim())
        continue
      }
      isComment = false
      const colon = line.indexOf(':')
      const key = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      fields[key] = fields[key] !== undefined ? `${fields[key]}\n${value}` : value
    }
    comments.push(...said)
    if (isComment || fields.data === undefined) return { comments: said }
    return { id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) }
  }

  /** Events read while waiting for a comment, handed out first by next(). */
  const early: SseEvent[] = []

  const api: SseReader = {
    comments,
    async next(timeoutMs = 5000) {
      if (early.length > 0) return early.shift()!
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const got = await read(deadline, timeoutMs)
        if (got === null) return null
        if ('event' in got) return got
      }
    },
    async comment(text, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const got = await read(deadline, timeoutMs)
        if (got === null) throw new Error(`the stream ended before the comment "${text}"`)
        if ('event' in got) early.push(got)
        else if (got.comments.includes(text)) return
      }
    },
    async until(stop, timeoutMs = 10_000) {
      const out: SseEvent[] = []
      for (;;) {
        const e = await api.next(timeoutMs)
        if (!e) return out
        out.push(e)
        if (stop(e)) return out
      }
    },
    async cancel() {
      await reader.cancel().catch(() => {})
    },
  }
  return api
}
