import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveWithBun } from '../../adapters/bun/serve.ts'
import { DENO, ROOT } from '../helpers/process.ts'
import { createContractApp } from './fixtures/http-server-app.ts'
import { describeHttpServerContract, type ServedApp } from './http-server.contract.ts'

describeHttpServerContract({
  name: 'Bun.serve, in this process',
  async serve({ tls }) {
    const app = createContractApp()
    const server = serveWithBun(app.fetch, { port: 0, host: '127.0.0.1', maxBodyBytes: 1024 * 1024, tls })
    return {
      port: server.port,
      secure: server.secure,
      reloadTls: (pem) => server.reloadTls(pem),
      stop: (graceful) => server.stop(graceful),
      release: async (name) => app.release(name),
    }
  },
})

describeHttpServerContract({
  name: 'Deno.serve, in a Deno process',
  // With the kernel's hand-over of a closing listener's queue, nothing is refused during a reload.
  knownDefects: migratesQueuedConnections()
    ? {}
    : {
        resetsConnectionsDuringReload:
          'net.ipv4.tcp_migrate_req is not 1: Linux resets the connections still queued on the listener Deno closes after a reload (see docs/operations.md, HTTPS)',
      },
  async serve({ tls }) {
    const script = join(ROOT, 'tests', 'contract', 'fixtures', 'serve-contract-app.ts')
    const deno = [DENO, 'run', '--allow-all', '--unstable-net', '--no-check', script, JSON.stringify({ tls })]
    const child = Bun.spawn(deno, { cwd: ROOT, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
    const lines = readLines(child.stdout)
    const first = await lines.next()
    if (first.done) throw new Error(`the Deno server did not start: ${await new Response(child.stderr).text()}`)
    const { port, secure } = JSON.parse(first.value) as { port: number; secure: boolean }
    const replies = new Map<number, (reply: { ok: boolean; error?: string }) => void>()
    void (async () => {
      for await (const line of lines) {
        const reply = JSON.parse(line) as { id: number; ok: boolean; error?: string }
        replies.get(reply.id)?.(reply)
      }
    })()
    let nextId = 0
    const command = (op: Record<string, unknown>) =>
      new Promise<void>((resolve, reject) => {
        const id = ++nextId
        replies.set(id, (reply) => (reply.ok ? resolve() : reject(new Error(reply.error))))
        child.stdin.write(`${JSON.stringify({ id, ...op })}\n`)
        child.stdin.flush()
      })
    const served: ServedApp = {
      port,
      secure,
      reloadTls: (pem) => command({ op: 'reload', ...pem }),
      release: (name) => command({ op: 'release', name }),
      async stop(graceful = true) {
        if (child.exitCode !== null) return
        await command({ op: 'stop', graceful })
        await child.exited
      },
    }
    return served
  },
})

/** Whether Linux hands the connections queued on a closing SO_REUSEPORT listener to another one. */
function migratesQueuedConnections(): boolean {
  try {
    return readFileSync('/proc/sys/net/ipv4/tcp_migrate_req', 'utf8').trim() === '1'
  } catch {
    return false
  }
}

/** The lines a process prints, one at a time. */
async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true })
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      yield buffer.slice(0, end)
      buffer = buffer.slice(end + 1)
    }
  }
}
