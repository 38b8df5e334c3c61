import { buildCatalog, catalogTags } from '../core/plugin/catalog.ts'
import { createAuthService } from '../core/services/auth.ts'
import { createMemberService } from '../core/services/members.ts'
import { OIDC_SWEEP_EVERY_MS } from '../core/services/oidc-sessions.ts'
import { createServiceAccountService } from '../core/services/service-accounts.ts'
import type { EventRecorder } from '../runtime/event-recorder.ts'
import { createKeysAndOrganizations, openPeopleAndSignOn } from './accounts.ts'
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
  const accounts = { config, logger, clock, ids, store, auth }
  const { apiKeys, organizations } = createKeysAndOrganizations(accounts)
  const serviceAccounts = createServiceAccountService({ store, clock, ids, auth })
  const knownTags = catalogTags(buildCatalog(registry))
  const { people, oidc } = await openPeopleAndSignOn({ ...accounts, secretBox, pluginTags: () => knownTags })
  // Sessions a provider began are checked at least hourly, used or not (oidc-sessions.ts).
  await own(
    () => {
      const timer = setInterval(() => {
        oidc.sweepSessions().catch((error) => logger.warn('could not check sign-on sessions', { error: String(error) }))
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
