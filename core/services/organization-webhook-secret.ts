/**
 * The organization's webhook secret: what an event source sends as `?secret=` to
 * POST /v1/orgs/{orgId}/integrations/eventsource. It must be shown again on request, so it is
 * sealed with the secret box (not hashed). The first read makes one; regenerating replaces it
 * at once (the old one stops working). Only the caller's own organization is reachable.
 */
import type { WebhookSecret } from '../domain/organization.ts'
import { notFound } from '../errors.ts'
import { randomToken } from '../ids.ts'
import type { Clock } from '../ports/clock.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { organizations } from '../store/organizations.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/** The secret an organization's event-source webhook is signed with. */
export interface OrganizationWebhookSecretService {
  /** The secret, made on first read. */
  reveal(caller: Principal, organizationId: string): Promise<WebhookSecret>
  /** A new secret; the previous one stops working at once. */
  regenerate(caller: Principal, organizationId: string): Promise<WebhookSecret>
  /** For the event-source webhook: the secret in clear, or null while none was made. */
  secretOf(organizationId: string): Promise<string | null>
}

export function createOrganizationWebhookSecretService(deps: {
  store: Store
  secretBox: SecretBox
  clock: Clock
}): OrganizationWebhookSecretService {
  const { store, secretBox, clock } = deps

  function ownOrganization(caller: Principal, organizationId: string) {
    if (organizationId !== caller.organizationId) throw notFound('organization')
  }

  async function set(organizationId: string, onlyIfUnset: boolean) {
    const sealed = await secretBox.seal(`${WEBHOOK_SECRET_PREFIX}${randomToken(32)}`)
    await store.write((tx) => organizations.setWebhookSecret(tx, organizationId, sealed, clock.now(), onlyIfUnset))
  }

  async function read(organizationId: string): Promise<WebhookSecret | null> {
    const row = await organizations.webhookSecret(store, organizationId)
    if (!row?.webhook_secret) return null
    return {
      organizationId,
      webhookSecret: await secretBox.open(row.webhook_secret),
      updatedAt: iso(row.webhook_secret_updated_at ?? 0),
    }
  }

  return guarded<OrganizationWebhookSecretService>(
    'organizationWebhookSecret',
    {
      reveal: ['org:update'],
      regenerate: ['org:update'],
      // Intake checks a delivery's signature with it: no caller.
      secretOf: null,
    },
    {
      /** The secret, made on first read. */
      async reveal(caller: Principal, organizationId: string): Promise<WebhookSecret> {
        ownOrganization(caller, organizationId)
        const current = await read(organizationId)
        if (current) return current
        await set(organizationId, true)
        return (await read(organizationId))!
      },

      /** A new secret; the previous one stops working at once. */
      async regenerate(caller: Principal, organizationId: string): Promise<WebhookSecret> {
        ownOrganization(caller, organizationId)
        await set(organizationId, false)
        return (await read(organizationId))!
      },

      /** For the event-source webhook: the secret in clear, or null while none was made. */
      async secretOf(organizationId: string): Promise<string | null> {
        return (await read(organizationId))?.webhookSecret ?? null
      },
    },
  )
}
