/**
 * Response bodies written from outside on Bun: a direct stream, flushed once per moment. A
 * write the socket cannot take yet counts as waiting until Bun drains it; `abort` closes the
 * stream with an error, which drops the connection at once (an errored standard stream would
 * hold it until its buffered bytes drain, which a client that never reads never lets happen).
 */
import type { PushBody, PushBodyFactory } from '../../core/http/sse.ts'

interface DirectController {
  write(chunk: Uint8Array): number | Promise<number>
  flush(): number | Promise<number> | undefined
  close(error?: Error): void
}

export const bunPushBody: PushBodyFactory = (start, cancelled) => {
  let finished = false
  let done!: () => void
  return new ReadableStream({
    type: 'direct',
    pull(controller: DirectController) {
      let waiting = 0
      const settle = (result: unknown, size: number) => {
        if (result instanceof Promise) {
          waiting += size
          result.then(
            () => (waiting = 0),
            () => {},
          )
        }
      }
      const body: PushBody = {
        write(chunk) {
          if (finished) return 0
          settle(controller.write(chunk), chunk.byteLength)
          return waiting
        },
        flush() {
          if (!finished) settle(controller.flush(), 0)
        },
        close() {
          if (finished) return
          finished = true
          controller.close()
          done()
        },
        abort(reason) {
          if (finished) return
          finished = true
          controller.close(reason)
          done()
        },
      }
      start(body)
      return new Promise<void>((resolve) => (done = resolve))
    },
    cancel() {
      finished = true
      cancelled()
      done?.()
    },
  } as unknown as UnderlyingDefaultSource<Uint8Array>) as ReadableStream<Uint8Array>
}
