/** Organizations, and the operator's bootstrap of the first one and its owner key. */
import { aiCredits } from '../store/ai-credits.ts'
import type { Organization } from '../domain/organization.ts'
import { RAW_KEY_PREFIX } from '../domain/api-key.ts'
import { badRequest, conflict, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import { isUniqueViolation, type Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { apiKeys } from '../store/api-keys.ts'
import { organizations } from '../store/organizations.ts'
import type { ApiKeyService } from './api-keys.ts'

export const DEFAULT_ORGANIZATION = 'default'

export class BootstrapKeyError extends Error {
  override name = 'BootstrapKeyError'
}

/** Organizations as the installation manages them (the CLI, bootstrap): no caller, no permission table. */
export interface OrganizationService {
  /** A new organization, with its starting AI credits; a 409 when the name is taken. */
  create(name: string): Promise<Organization>
  /** By id, or else by name. */
  resolve(idOrName: string): Promise<Organization>
  /** The organization of that name, created when missing. */
  ensure(name: string): Promise<Organization>
  /** Every organization of the installation. */
  list(): Promise<Organization[]>
  /** Ensures the organization `default` and an owner key whose raw value is `rawKey`. */
  bootstrap(rawKey: string): Promise<{ organization: Organization; keyId: string; created: boolean }>
}

export function createOrganizationService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  apiKeys: ApiKeyService
  /** AI credits a new organization starts with (AUTOMATON_AI_DEFAULT_CREDITS). */
  startingCredits?: number
}): OrganizationService {
  const { store, clock, ids } = deps

  async function create(name: string): Promise<Organization> {
    const trimmed = name.trim()
    if (!trimmed || trimmed.length > 100) throw badRequest('organization name must be 1 to 100 characters')
    const org = { id: ids.next('org'), name: trimmed, createdAt: clock.now() }
    try {
      await store.write(async (tx) => {
        await organizations.insert(tx, org)
        if (deps.startingCredits) {
          await aiCredits.grant(tx, {
            id: ids.next('job'),
            organizationId: org.id,
            amount: deps.startingCredits,
            note: 'AUTOMATON_AI_DEFAULT_CREDITS',
            at: org.createdAt,
          })
        }
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`an organization named "${trimmed}" already exists`)
      throw error
    }
    return (await organizations.byId(store, org.id))!
  }

  /** By id, or else by name. */
  async function resolve(idOrName: string): Promise<Organization> {
    const org = (await organizations.byId(store, idOrName)) ?? (await organizations.byName(store, idOrName))
    if (!org) throw notFound(`organization "${idOrName}"`)
    return org
  }

  async function ensure(name: string): Promise<Organization> {
    const existing = await organizations.byName(store, name)
    if (existing) return existing
    try {
      return await create(name)
    } catch (error) {
      // Another process created it between our read and our write.
      const raced = await organizations.byName(store, name)
      if (raced) return raced
      throw error
    }
  }

  return {
    create,
    resolve,
    ensure,
    list: () => organizations.list(store),

    /** Ensures the organization `default` and an owner key whose raw value is `rawKey`. */
    async bootstrap(rawKey: string): Promise<{ organization: Organization; keyId: string; created: boolean }> {
      if (!rawKey.startsWith(RAW_KEY_PREFIX) || rawKey.length < RAW_KEY_PREFIX.length + 16) {
        throw new BootstrapKeyError(
          `AUTOMATON_BOOTSTRAP_KEY must start with "${RAW_KEY_PREFIX}" followed by at least 16 characters`,
        )
      }
      const organization = await ensure(DEFAULT_ORGANIZATION)
      const existing = await apiKeys.byHash(store, await sha256Hex(rawKey))
      if (existing) {
        if (existing.revoked_at !== null)
          deps.logger.warn('the bootstrap key was revoked and stays revoked', { keyId: existing.id })
        return { organization, keyId: existing.id, created: false }
      }
      try {
        const key = await deps.apiKeys.issue({
          organizationId: organization.id,
          name: 'bootstrap',
          description: 'from AUTOMATON_BOOTSTRAP_KEY',
          scope: 'read-write',
          role: 'owner',
          serviceAccountId: null,
          userId: null,
          createdBy: 'bootstrap',
          expiresAt: null,
          rawKey,
        })
        return { organization, keyId: key.id, created: true }
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
        const raced = await apiKeys.byHash(store, await sha256Hex(rawKey))
        return { organization, keyId: raced!.id, created: false }
      }
    },
  }
}
