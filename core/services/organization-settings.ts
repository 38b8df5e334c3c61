/**
 * An organization's settings: its run retention, which replaces the installation's
 * (AUTOMATON_RUN_RETENTION) for its runs, and whether its members must sign in with single sign-on. Only the caller's own organization is reachable.
 */
import {
  formatRetention,
  type OrganizationSettings,
  type OrganizationSettingsBody,
  parseRetention,
} from '../domain/retention.ts'
import { badRequest, notFound } from '../errors.ts'
import type { Store } from '../ports/store.ts'
import { ssoRequirement } from '../store/oidc.ts'
import { organizations } from '../store/organizations.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

/** An organization's settings; only the caller's own organization is reachable. */
export interface OrganizationSettingsService {
  /** The organization's run retention, and the one in effect. */
  get(caller: Principal, organizationId: string): Promise<OrganizationSettings>
  /** Sets the organization's run retention (null: the installation's). */
  put(caller: Principal, organizationId: string, body: OrganizationSettingsBody): Promise<OrganizationSettings>
}

export function createOrganizationSettingsService(deps: {
  store: Store
  defaultRetentionMs: number
}): OrganizationSettingsService {
  const { store } = deps

  async function read(organizationId: string): Promise<OrganizationSettings> {
    const row = await organizations.runRetention(store, organizationId)
    if (!row) throw notFound('organization')
    const own = row.run_retention_ms
    return {
      organizationId,
      runRetention: own === null ? null : formatRetention(own),
      effectiveRunRetention: formatRetention(own ?? deps.defaultRetentionMs),
      ssoRequired: await ssoRequirement.of(store, organizationId),
    }
  }

  function ownOrganization(caller: Principal, organizationId: string) {
    if (organizationId !== caller.organizationId) throw notFound('organization')
  }

  return guarded<OrganizationSettingsService>(
    'organizationSettings',
    {
      get: ['org:update'],
      put: ['org:update'],
    },
    {
      get(caller: Principal, organizationId: string): Promise<OrganizationSettings> {
        ownOrganization(caller, organizationId)
        return read(organizationId)
      },

      async put(
        caller: Principal,
        organizationId: string,
        body: OrganizationSettingsBody,
      ): Promise<OrganizationSettings> {
        ownOrganization(caller, organizationId)
        let ms: number | null = null
        if (body.runRetention !== undefined && body.runRetention !== null) {
          ms = parseRetention(body.runRetention)
          if (ms === null)
            throw badRequest('invalid run retention', [
              { path: '/runRetention', message: 'use 0 or whole minutes, hours, days or weeks: 90m, 12h, 30d, 2w' },
            ])
        }
        await store.write(async (tx) => {
          if (body.runRetention !== undefined) await organizations.setRunRetention(tx, organizationId, ms)
          if (body.ssoRequired !== undefined) await ssoRequirement.set(tx, organizationId, body.ssoRequired)
        })
        return read(organizationId)
      },
    },
  )
}
