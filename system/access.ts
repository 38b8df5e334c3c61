import { buildCatalog, catalogTags } from '../core/plugin/catalog.ts'
import type { PasswordHasher } from '../core/ports/passwords.ts'
import { createApiKeyService } from '../core/services/api-keys.ts'
import { createAuthService } from '../core/services/auth.ts'
import { createMemberService } from '../core/services/members.ts'
import { createOrganizationService } from '../core/services/organizations.ts'
import { type OidcService, openOidcService } from '../core/services/oidc.ts'
import { OIDC_SWEEP_EVERY_MS } from '../core/services/oidc-sessions.ts'
import { createPeopleService } from '../core/services/people.ts'
import { createServiceAccountService } from '../core/services/service-accounts.ts'
import { tags } from '../core/store/templates.ts'
import type { EventRecorder } from '../runtime/event-recorder.ts'
import { isBun } from './platform.ts'
import type { Access, Adapters, Own } from './types.ts'

/** Authentication, keys, organizations and people; the bootstrap key, when the operator set one. */
export async function openAccess(
  { config, logger, clock, ids, store, bus, registry, secretBox }: Adapters,
  recorder: EventRecorder,
  own: Own,
): Promise<Access> {
  const auth = await own(
    () => createAuthService({ store, clock, bus, logger }),
    (a) => a.stop(),
  )
  const apiKeys = createApiKeyService({ store, clock, ids, auth })
  const serviceAccounts = createServiceAccountService({ store, clock, ids, auth })
  const organizations = createOrganizationService({
    store,
    clock,
    ids,
    logger,
    apiKeys,
    startingCredits: config.aiDefaultCredits,
  })
  const passwords: PasswordHasher = isBun
    ? (await import('../adapters/bun/passwords.ts')).bunPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
    : (await import('../adapters/deno/passwords.ts')).wasmPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
  const knownTags = catalogTags(buildCatalog(registry))
  // Single sign-on checks sessions people authenticate, and starts them: bound once both exist.
  let oidc: OidcService | null = null
  const people = createPeopleService({
    store,
    clock,
    ids,
    logger,
    passwords,
    knownTags: async () => new Set([...knownTags, ...(await tags.slugs(store))]),
    settings: {
      idleMs: config.sessionIdleMs,
      maxAgeMs: config.sessionMaxAgeMs,
      invitationTtlMs: config.invitationTtlMs,
    },
    sessionCheck: (session, force) => (oidc ? oidc.checkSession(session, force) : Promise.resolve(true)),
  })
  oidc = openOidcService({ store, clock, ids, logger, secretBox, people, auth }, config)
  // Sessions a provider began are checked at least hourly, used or not (oidc-sessions.ts).
  const sweeping = oidc
  await own(
    () => {
      const timer = setInterval(() => {
        sweeping
          .sweepSessions()
          .catch((error) => logger.warn('could not check sign-on sessions', { error: String(error) }))
      }, OIDC_SWEEP_EVERY_MS)
      timer.unref?.()
      return timer
    },
    (timer) => clearInterval(timer),
  )
  const members = createMemberService({ store, bus, clock, ids, auth, recorder, afterRemoval: people.afterRemoval })
  if (config.bootstrapKey) {
    const result = await organizations.bootstrap(config.bootstrapKey)
    if (result.created)
      logger.info('bootstrap key created', { organizationId: result.organization.id, keyId: result.keyId })
  }
  return { auth, apiKeys, serviceAccounts, organizations, people, oidc, members }
}
