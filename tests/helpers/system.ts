/**
 * An in-process system on a real store, with an organization and an owner key, and a
 * `call` helper that drives the HTTP app through `app.handle(new Request(…))`.
 */
import { loadConfig } from '../../core/config.ts'
import { openSystem, type System } from '../../main.ts'
import { type Logger, silentLogger } from '../../core/ports/logger.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { PluginDefinition } from '../../core/plugin/sdk.ts'
import type { EngineRole } from '../../runtime/index.ts'
import type { HttpClient } from '../../core/ports/http-client.ts'
import type { Tracing } from '../../core/ports/tracing.ts'
import { freshPostgresUrl } from './services.ts'
import { tempDir } from './tmp.ts'

export interface CallOptions {
  body?: unknown
  key?: string | null
  headers?: Record<string, string>
  rawBody?: string
}

export interface CallResult<T = any> {
  status: number
  headers: Headers
  body: T
}

export interface TestSystem {
  system: System
  kind: 'sqlite' | 'postgres'
  orgId: string
  /** The raw owner key of the organization. */
  key: string
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>
  /** Creates another organization with its own owner key. */
  newOrganization(name: string): Promise<{ orgId: string; key: string }>
  /**
   * Opens another system on the same data dir or database, with the same organization and key:
   * a second process, or this one after a restart. Its close() leaves the data in place.
   */
  openSibling(env?: Record<string, string>, options?: TestSystemOptions): Promise<TestSystem>
  /** Closes the system and keeps its data (a stopped process); close() still disposes of the data. */
  stop(): Promise<void>
  close(): Promise<void>
}

export interface TestSystemOptions {
  clock?: Clock
  plugins?: readonly PluginDefinition[]
  role?: EngineRole
  http?: HttpClient
  tracing?: Tracing
  /** Where the system logs (silent by default); `recordingLogger` keeps the lines. */
  logger?: Logger
}

/** A logger that keeps every line (all levels), for tests that check what was logged. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const make = (bound: Record<string, unknown>): Logger => {
    const write = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
      lines.push(JSON.stringify({ level, msg, ...bound, ...fields }))
    }
    return {
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
      child: (fields) => make({ ...bound, ...fields }),
    }
  }
  return Object.assign(make({}), { lines })
}

export async function openTestSystem(
  kind: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
  options: TestSystemOptions = {},
): Promise<TestSystem> {
  const dir = tempDir()
  const pg = kind === 'postgres' ? await freshPostgresUrl() : null
  const t = await openOn(
    kind,
    { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_DATABASE_URL: pg?.url ?? '', ...env },
    options,
    null,
  )
  const closeSystem = t.close
  return {
    ...t,
    async close() {
      await closeSystem()
      await pg?.drop()
      dir.remove()
    },
  }
}

async function openOn(
  kind: 'sqlite' | 'postgres',
  env: Record<string, string>,
  options: TestSystemOptions,
  owner: { orgId: string; key: string } | null,
): Promise<TestSystem> {
  const config = loadConfig({
    AUTOMATON_SQLITE_SYNCHRONOUS: 'normal',
    AUTOMATON_PG_POOL_SIZE: '4',
    // The smallest argon2id cost allowed: tests sign in often.
    AUTOMATON_PASSWORD_HASH_MEMORY_KIB: '19456',
    // Tests start from an empty gallery; the starter templates' own test turns them on.
    AUTOMATON_STARTER_TEMPLATES: 'false',
    ...env,
  })
  const system = await openSystem(config, {
    logger: options.logger ?? silentLogger,
    clock: options.clock,
    plugins: options.plugins,
    role: options.role,
    http: options.http,
    tracing: options.tracing,
  })

  async function newOrganization(name: string) {
    const org = await system.organizations.create(name)
    const issued = await system.apiKeys.issue({
      organizationId: org.id,
      name: 'owner',
      scope: 'read-write',
      role: 'owner',
      serviceAccountId: null,
      userId: null,
      createdBy: 'test',
      expiresAt: null,
    })
    return { orgId: org.id, key: issued.key }
  }
  const first = owner ?? (await newOrganization('acme'))
  let closed = false
  const stop = async () => {
    if (closed) return
    closed = true
    await system.close()
  }

  return {
    system,
    kind,
    orgId: first.orgId,
    key: first.key,
    newOrganization,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers }
      const key = opts.key === undefined ? first.key : opts.key
      if (key) headers.authorization = `Bearer ${key}`
      let body: string | undefined = opts.rawBody
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body)
        headers['content-type'] ??= 'application/json'
      }
      const response = await system.app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      return { status: response.status, headers: response.headers, body: parsed as any }
    },
    openSibling(extra = {}, siblingOptions = {}) {
      return openOn(kind, { ...env, ...extra }, siblingOptions, first)
    },
    stop,
    close: stop,
  }
}
