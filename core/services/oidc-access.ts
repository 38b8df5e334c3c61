/**
 * What a provider's groups give a person here, applied at every sign-in and every check of a
 * session: in each organization the mapping names, the highest role their groups give, or no
 * membership at all (their keys in it revoked). Organizations the mapping does not name are left
 * as they are (an invitation there stays the organization's business).
 */
import { type GroupRole, rolesOfGroups } from '../domain/oidc.ts'
import type { Role } from '../domain/permissions.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { apiKeys } from '../store/api-keys.ts'
import { members } from '../store/members.ts'
import { organizations } from '../store/organizations.ts'

/** The groups a claim lists: an array of strings, or one string. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim]
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string')
  return typeof value === 'string' ? [value] : []
}

/** The role of each organization (by id) the mapping names: a role, or null for none. */
export async function desiredRoles(
  db: SqlExecutor,
  mapping: readonly GroupRole[],
  groups: readonly string[],
): Promise<Map<string, Role | null>> {
  const roles = rolesOfGroups(mapping, groups)
  const out = new Map<string, Role | null>()
  for (const organization of new Set(mapping.map((m) => m.organization))) {
    const id = await organizations.idByIdOrName(db, organization)
    if (id) out.set(id, roles.get(organization) ?? null)
  }
  return out
}

/** Brings the person's memberships in line; answers whether any membership was taken away. */
export async function applyRoles(
  tx: SqlExecutor,
  userId: string,
  desired: ReadonlyMap<string, Role | null>,
  at: number,
): Promise<boolean> {
  let removed = false
  for (const [organizationId, role] of desired) {
    const held = await members.get(tx, organizationId, userId)
    if (role === null) {
      if (!held) continue
      await members.remove(tx, organizationId, userId)
      await apiKeys.revokeForUser(tx, organizationId, userId, at)
      removed = true
    } else if (!held) await members.add(tx, { organizationId, userId, role, at })
    else if (held.role !== role) {
      await members.setRole(tx, organizationId, userId, role)
      removed = true
    }
  }
  return removed
}
