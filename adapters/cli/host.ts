/**
 * What the command line needs from the composition root, which gives it (main.ts): the version,
 * the runtime, opening the system, and an HTTP server of the runtime. Commands depend on these
 * declared shapes, never on main.ts, so the root stays the only file that knows every layer.
 */
import process from 'node:process'
import type { Config } from '../../core/config.ts'
import { createJsonLogger } from '../../core/logger.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { FetchHandler, HttpServer, ServeOptions } from '../../core/ports/http-server.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import type { Keyring } from '../../core/security/secret-box.ts'
import type { AuditLog } from '../../core/services/audit-log.ts'
import type { ApiKeyService } from '../../core/services/api-keys.ts'
import type { OrganizationService } from '../../core/services/organizations.ts'
import type { PeopleService } from '../../core/services/people.ts'
import type { OidcService } from '../../core/services/oidc.ts'
import type { UniverseService } from '../../core/services/universe.ts'

/** The parts of an open system the one-shot commands use. */
export interface CliSystem {
  readonly config: Config
  readonly logger: Logger
  readonly clock: Clock
  readonly store: Store
  readonly secretBox: Keyring
  readonly organizations: OrganizationService
  readonly apiKeys: ApiKeyService
  readonly people: PeopleService
  readonly oidc: OidcService
  readonly universe: UniverseService
  /** The audit log (`audit verify`). */
  readonly audit: AuditLog
  /** Releases everything the system opened, in reverse order. */
  close(): Promise<void>
}

/** The serving system `serve` and `worker` open: the command system's parts, the engine and the app. */
export interface ServingSystem extends CliSystem {
  readonly engine: { readonly role: string }
  readonly app: { fetch: FetchHandler }
}

export interface CliHost {
  readonly version: string
  readonly runtime: 'bun' | 'deno'
  /**
   * Opens the system: by default the API with the engine of its role; `role: 'worker'` a worker;
   * `engine: false` neither runs nor timers (commands that read or mint keys).
   */
  openSystem(config: Config, options?: { role?: 'worker'; engine?: boolean; logger?: Logger }): Promise<ServingSystem>
  /** Opens only the store, the keyring and the services one-shot commands call: no plugins, app or engine. */
  openCommandSystem(config: Config, options?: { logger?: Logger }): Promise<CliSystem>
  /** Serves a handler with the runtime's HTTP server (Bun.serve or Deno.serve). */
  listen(fetch: FetchHandler, options: ServeOptions): Promise<HttpServer>
}

/** One command's words, with the configuration and the host. */
export interface CommandArgs {
  /** The word after the command (`create` in `orgs create`). */
  readonly sub: string | undefined
  /** The positional words after it. */
  readonly rest: readonly string[]
  readonly flags: Readonly<Record<string, string>>
  readonly config: Config
  readonly host: CliHost
}

/** A command: its exit code, or a thrown error (see failureOf). */
export type Command = (args: CommandArgs) => Promise<number>

/** Runs `fn` on a system opened for one command (warnings and errors logged), then closes it. */
export async function withSystem<T>(host: CliHost, config: Config, fn: (system: CliSystem) => Promise<T>): Promise<T> {
  const system = await host.openCommandSystem(config, {
    logger: createJsonLogger('warn', (line) => process.stderr.write(line)),
  })
  try {
    return await fn(system)
  } finally {
    await system.close()
  }
}
