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
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: '0',
      HOST: '127.0.0.1',
      ...options.env,
    },
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
export async function runCli(
  args: string[],
  env: Record<string, string>,
  cmd: string[] = [BUN, join(ROOT, 'main.ts')],
) {
  const child = Bun.spawn([...cmd, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { stdout, stderr, code }
}

export async function api(base: string, method: string, path: string, key?: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, body: parsed, headers: response.headers }
}

/**
 * A worker process (`automaton worker`), found ready by its "worker is running" log line. With
 * `cpuProfileDir` it runs under `bun --cpu-prof` and writes its profile there when it exits on
 * SIGTERM (bench/profile.ts reads it).
 */
export async function startWorker(
  env: Record<string, string>,
  timeoutMs = 20_000,
  options: { cpuProfileDir?: string } = {},
) {
  const profiling = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []
  const child = Bun.spawn([BUN, ...profiling, join(ROOT, 'main.ts'), 'worker'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  let ready!: () => void
  const isReady = new Promise<void>((resolve) => (ready = resolve))
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true })
      if (output.includes('"msg":"automaton worker is running"')) ready()
    }
  }
  void pump(child.stdout as ReadableStream<Uint8Array>)
  void pump(child.stderr as ReadableStream<Uint8Array>)
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([
    isReady,
    child.exited.then((code) => {
      throw new Error(`worker exited with ${code} before running:\n${output}`)
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`worker did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs)
    }),
  ]).finally(() => clearTimeout(timer))
  return {
    pid: child.pid,
    logs: () => output,
    exited: child.exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      child.kill(signal)
      return child.exited
    },
  }
}

/** A NATS server with JetStream of the test's own (so a test may restart it), on a free port. */
export async function startNats(storeDir: string, port?: number) {
  const bin =
    process.env.NATS_SERVER_BIN ??
    ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => Bun.file(p).size > 0)
  if (!bin) throw new Error('nats-server was not found; set NATS_SERVER_BIN')
  // A random port may be taken: another one is tried, unless the caller named the port.
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? 20_000 + Math.floor(Math.random() * 20_000)
    const child = Bun.spawn([bin, '-a', '127.0.0.1', '-p', String(chosen), '-js', '-sd', storeDir], {
      stdout: 'ignore',
      stderr: 'pipe',
    })
    let exited = false
    void child.exited.then(() => (exited = true))
    // The server says it is ready (JetStream included) on its log, which goes to stderr.
    let output = ''
    const decoder = new TextDecoder()
    const reading = (async () => {
      for await (const chunk of child.stderr) output += decoder.decode(chunk, { stream: true })
    })()
    const deadline = Date.now() + 10_000
    while (!exited && Date.now() < deadline && !output.includes('Server is ready')) await Bun.sleep(20)
    if (output.includes('Server is ready') && !exited) {
      return {
        url: `nats://127.0.0.1:${chosen}`,
        port: chosen,
        async stop() {
          child.kill('SIGKILL')
          await child.exited
        },
      }
    }
    child.kill('SIGKILL')
    await reading.catch(() => {})
    if (port !== undefined || attempt >= 5)
      throw new Error(`nats-server did not become ready on ${chosen}:\n${output.slice(-2000)}`)
  }
}

/** Polls `probe` until it answers something truthy; throws naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}
