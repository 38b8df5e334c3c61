/**
 * A Postgres server of a test's own, so that the test may stop, restart and break it without
 * touching the machine's shared one: a fresh cluster made by the installed `initdb` in a
 * temporary directory, on a free port, its socket in the same directory. `initdb` and the server
 * refuse to run as root, so when the test runs as root (CI does) they run as the `postgres` OS
 * user through `runuser`, and the directory is handed to that user.
 *
 * It does not tune the server beyond what a test needs (fsync stays on: a restart must find what
 * was committed), and it never reuses a cluster: `destroy()` stops it and removes its directory.
 */
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { tempDir } from './tmp.ts'

export interface PrivatePostgres {
  /** The URL of the `postgres` database as the superuser, for creating more. */
  readonly url: string
  readonly port: number
  /** Stops the server (`pg_ctl stop -m fast`): connections are cut, nothing is lost. */
  stop(): Promise<void>
  /** Starts it again on the same port and data. */
  start(): Promise<void>
  /** A fast restart: stop -m fast, then start at once. */
  restart(): Promise<void>
  /** A fresh database on it; its URL. */
  createDatabase(name: string): Promise<string>
  /** Stops it (whatever state it is in) and removes its directory; safe to call twice. */
  destroy(): Promise<void>
}

/** The newest installed `/usr/lib/postgresql/<version>/bin` with initdb and pg_ctl, or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root)
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
  for (const version of versions) {
    const bin = join(root, version, 'bin')
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin
  }
  return null
}

const isRoot = () => process.getuid?.() === 0

/** Runs a command as the postgres OS user when this process is root, else as itself; throws with its output on failure. */
async function runAsOwner(cmd: string[], timeoutMs = 60_000): Promise<string> {
  const full = isRoot() ? ['runuser', '-u', 'postgres', '--', ...cmd] : cmd
  const child = Bun.spawn(full, {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  clearTimeout(timer)
  if (code !== 0) throw new Error(`${cmd.join(' ')} failed (${code}):\n${out}${err}`.slice(-4000))
  return out
}

/** A TCP port nothing listens on now (the kernel's choice). */
export async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = listener.port
  listener.stop(true)
  return port
}

/** Makes a cluster and starts it; throws when the binaries are missing (check postgresBinDir() first). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir()
  if (!bin) throw new Error('no /usr/lib/postgresql/<version>/bin with initdb and pg_ctl')
  const dir = tempDir('automaton-fault-pg-')
  const data = join(dir.path, 'data')
  const socket = join(dir.path, 'socket')
  mkdirSync(socket)
  if (isRoot()) {
    const { uid, gid } = await ownerIds()
    for (const path of [dir.path, socket]) chownSync(path, uid, gid)
  }
  const port = await freePort()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const ctl = (...args: string[]) => runAsOwner([join(bin, 'pg_ctl'), '-D', data, ...args])
  const options = `-p ${port} -k ${socket} -c listen_addresses=127.0.0.1 -c max_connections=200`
  let destroyed = false
  // A test runner that exits before destroy() (a timeout, a crash) must not leave a server behind.
  const killOnExit = () => {
    killPostmaster(data)
    try {
      rmSync(dir.path, { recursive: true, force: true })
    } catch {
      // a backend still writing: the directory is in the system's temporary space anyway
    }
  }
  const start = async () => {
    await ctl('-o', options, '-l', join(dir.path, 'server.log'), '-w', '-t', '60', 'start')
  }
  const stop = async () => {
    await ctl('-w', '-t', '60', 'stop', '-m', 'fast')
  }
  try {
    await runAsOwner([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'])
    await start()
  } catch (error) {
    killPostmaster(data)
    dir.remove()
    throw error
  }
  process.on('exit', killOnExit)
  return {
    url,
    port,
    stop,
    start,
    async restart() {
      await stop()
      await start()
    },
    async createDatabase(name) {
      const admin = postgres(url, { max: 1, onnotice: () => {} })
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`)
      } finally {
        await admin.end()
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    async destroy() {
      if (destroyed) return
      destroyed = true
      process.off('exit', killOnExit)
      await ctl('-w', '-t', '60', 'stop', '-m', 'immediate').catch(() => killPostmaster(data))
      rmSync(dir.path, { recursive: true, force: true })
    },
  }
}

/** SIGKILL to the cluster's postmaster, if one runs (its backends follow it); for when pg_ctl cannot stop it. */
function killPostmaster(data: string) {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    if (pid > 0) process.kill(pid, 'SIGKILL')
  } catch {
    // not running
  }
}

async function ownerIds(): Promise<{ uid: number; gid: number }> {
  const out = await runAsOwner(['id', '-u']).then((u) => u.trim())
  const gid = await runAsOwner(['id', '-g']).then((g) => g.trim())
  return { uid: Number(out), gid: Number(gid) }
}
