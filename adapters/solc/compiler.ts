/** The solc adapter: one worker, started on first use, compiling one source at a time. */
import type { CompileResult, SolidityCompiler } from '../../core/ports/compiler.ts'

export function createSolcCompiler(options: { timeoutMs?: number } = {}): SolidityCompiler {
  const timeoutMs = options.timeoutMs ?? 60_000
  let worker: Worker | null = null
  let ready: Promise<void> | null = null
  let version = 'solc (not loaded yet)'
  let next = 0
  const waiting = new Map<
    number,
    { resolve: (r: CompileResult) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }
  >()

  function start(): Promise<void> {
    if (ready) return ready
    ready = new Promise((resolve, reject) => {
      worker = new Worker(new URL('./solc-worker.ts', import.meta.url).href, { type: 'module' })
      worker.onmessage = (event: MessageEvent) => {
        const data = event.data as {
          ready?: boolean
          version?: string
          id?: number
          result?: CompileResult
          error?: string
        }
        if (data.ready) {
          version = data.version ?? version
          resolve()
          return
        }
        const job = waiting.get(data.id!)
        if (!job) return
        waiting.delete(data.id!)
        clearTimeout(job.timer)
        if (data.error) job.reject(new Error(`the compiler failed: ${data.error}`))
        else job.resolve(data.result!)
      }
      worker.onerror = (event) => {
        const error = new Error(`the compiler worker failed: ${(event as ErrorEvent).message ?? 'unknown error'}`)
        for (const job of waiting.values()) job.reject(error)
        waiting.clear()
        worker?.terminate()
        worker = null
        ready = null
        reject(error)
      }
    })
    return ready
  }

  return {
    get version() {
      return version
    },
    async compile(source, fileName = 'Contract.sol') {
      await start()
      const id = ++next
      return new Promise<CompileResult>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id)
          reject(new Error(`the compile took longer than ${timeoutMs} ms`))
        }, timeoutMs)
        waiting.set(id, { resolve, reject, timer })
        worker!.postMessage({ id, source, fileName })
      })
    },
    async close() {
      worker?.terminate()
      worker = null
      ready = null
    },
  }
}
