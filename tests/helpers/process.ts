/**
 * Real server processes for black-box tests: started with an environment, found ready by
 * the "automaton is serving" log line (which names the port), stopped by a signal.
 */
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '..', '..')
export const BUN = process.execPath
export const DENO = join(ROOT, 'node_modules', '.bin', 'deno')

export interface ServerProcess {
  readonly url: string
  readonly port: number
  readonly pid: number
  logs(): string
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>
  readonly exited: Promise<number>
}

export async function startServer(options: {
  env: Record<string, string>
  cmd?: string[]
  timeoutMs?: number
}): Promise<ServerProcess> {
  const cmd = options.cmd ?? [BUN, join(ROOT, 'main.ts'), 'serve']
  const child = Bun.spawn(cmd, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', HOST: '127.0.0.1', ...options.env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  let resolvePort: (port: number) => void
  const ready = new Promise<number>((resolve) => (resolvePort = resolve))
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true })
      const match = /"msg":"automaton is serving","port":(\d+)/.exec(output)
      if (match) resolvePort(Number(match[1]))
    }
  }
  void pump(child.stdout as ReadableStream<Uint8Array>)
  void pump(child.stderr as ReadableStream<Uint8Array>)
  const timeout = options.timeoutMs ?? 20_000
  let timer: ReturnType<typeof setTimeout> | undefined
  const port = await Promise.race([
    ready,
    child.exited.then((code) => {
      throw new Error(`server exited with ${code} before serving:\n${output}`)
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error(`server did not serve within ${timeout} ms:\n${output}`))
      }, timeout)
    }),
  ]).finally(() => clearTimeout(timer))
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    logs: () => output,
    exited: child.exited,
    async stop(signal = 'SIGTERM') {
      child.kill(signal)
      return child.exited
    },
  }
}

/** Runs the CLI to completion. */
export async function runCli(args: string[], env: Record<string, string>, cmd: string[] = [BUN, join(ROOT, 'main.ts')]) {
  const child = Bun.spawn([...cmd, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { stdout, stderr, code }
}

export async function api(base: string, method: string, path: string, key?: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, body: parsed, headers: response.headers }
}

/** Polls `probe` until it answers something truthy; throws naming `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}
