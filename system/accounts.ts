/**
 * The services the serving system (access.ts) and the one-shot commands (commands.ts) build alike:
 * API keys and organizations, then people with single sign-on. Two steps, because the commands
 * make the bootstrap key between them. Each system opens its auth service its own way and adds
 * what only it needs (the serving system's service accounts, members and session sweeper).
 */
import type { PasswordHasher } from '../core/ports/passwords.ts'
import { createApiKeyService } from '../core/services/api-keys.ts'
import type { AuthService } from '../core/services/auth.ts'
import { createOrganizationService } from '../core/services/organizations.ts'
import { createPeopleService } from '../core/services/people.ts'
import { type OidcService, openOidcService } from '../core/services/oidc.ts'
import { tags } from '../core/store/templates.ts'
import { isBun } from './platform.ts'
import type { Access, Adapters } from './types.ts'

type AccountDeps = Pick<Adapters, 'config' | 'logger' | 'clock' | 'ids' | 'store'> & { auth: AuthService }

/** API keys and the organizations that hold them. */
export function createKeysAndOrganizations({
  config,
  logger,
  clock,
  ids,
  store,
  auth,
}: AccountDeps): Pick<Access, 'apiKeys' | 'organizations'> {
  const apiKeys = createApiKeyService({ store, clock, ids, auth })
  const organizations = createOrganizationService({
    store,
    clock,
    ids,
    logger,
    apiKeys,
    startingCredits: config.aiDefaultCredits,
  })
  return { apiKeys, organizations }
}

/** People and their sessions, with single sign-on; `pluginTags` are the interests the plugins declare. */
export async function openPeopleAndSignOn(
  deps: AccountDeps & Pick<Adapters, 'secretBox'> & { pluginTags: () => Iterable<string> | Promise<Iterable<string>> },
): Promise<Pick<Access, 'people' | 'oidc'>> {
  const { config, logger, clock, ids, store, secretBox, auth, pluginTags } = deps
  // Single sign-on checks sessions people authenticate, and starts them: bound once both exist.
  let oidc: OidcService | null = null
  const people = createPeopleService({
    store,
    clock,
    ids,
    logger,
    passwords: await passwordsOf(config),
    knownTags: async () => new Set([...(await pluginTags()), ...(await tags.slugs(store))]),
    settings: {
      idleMs: config.sessionIdleMs,
      maxAgeMs: config.sessionMaxAgeMs,
      invitationTtlMs: config.invitationTtlMs,
    },
    sessionCheck: (session, force) => (oidc ? oidc.checkSession(session, force) : Promise.resolve(true)),
  })
  oidc = openOidcService({ store, clock, ids, logger, secretBox, people, auth }, config)
  return { people, oidc }
}

async function passwordsOf(config: Adapters['config']): Promise<PasswordHasher> {
  return isBun
    ? (await import('../adapters/bun/passwords.ts')).bunPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
    : (await import('../adapters/deno/passwords.ts')).wasmPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
}
