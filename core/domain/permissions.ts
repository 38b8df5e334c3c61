/**
 * Roles, permissions and scopes: the one table of who may do what (the design's, shared API.md).
 * A key's effective permissions are the permissions of its service account (or of its role)
 * narrowed by its scope: `read` keeps only the `…:read` and `…:stream` permissions.
 */
export const PERMISSIONS = [
  'org:read',
  'org:update',
  'member:invite',
  'member:remove',
  'member:update_role',
  'workflow:create',
  'workflow:read',
  'workflow:update',
  'workflow:delete',
  'workflow:execute',
  'workflow:publish',
  'connector:create',
  'connector:read',
  'connector:update',
  'connector:delete',
  'action:read',
  'run:read',
  'run:stream',
  'run:cancel',
  'execution:read',
  'execution:stream',
  'execution:webhook',
  'ai:chat',
  'agent:run',
  'wallet:read',
  'wallet:write',
  'wallet:withdraw',
  'apikey:create',
  'apikey:read',
  'apikey:revoke',
  'service_account:read',
  'service_account:write',
  'stats:read',
  'template:write',
  'template:moderate',
  'card:read',
  'card:write',
  'card:disclose',
  'x402:read',
  'x402:write',
  'universe:read',
  'audit:read',
] as const

export type Permission = (typeof PERMISSIONS)[number]

export const ROLES = ['owner', 'developer', 'viewer'] as const
export type Role = (typeof ROLES)[number]

export const SCOPES = ['read', 'read-write'] as const
export type Scope = (typeof SCOPES)[number]

const isReadOnly = (p: Permission) => p.endsWith(':read') || p.endsWith(':stream')

/**
 * Held by no role. `template:moderate` belongs to the owners of the operator organization (the
 * auth gate adds it there, and takes it away from everyone elsewhere); `card:disclose` to agents'
 * worker sessions and to keys explicitly granted it. An owner may grant both without holding them.
 */
export const GRANTED_APART: readonly Permission[] = ['template:moderate', 'card:disclose']

const OWNER: readonly Permission[] = PERMISSIONS.filter((p) => !GRANTED_APART.includes(p))
// The audit log is the owners' (a role may be given it through a service account).
const VIEWER: readonly Permission[] = PERMISSIONS.filter((p) => isReadOnly(p) && p !== 'audit:read')
const DEVELOPER: readonly Permission[] = OWNER.filter(
  (p) =>
    ![
      'org:update',
      'member:invite',
      'member:remove',
      'member:update_role',
      'wallet:withdraw',
      'card:write',
      'audit:read',
    ].includes(p),
)

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = Object.freeze({
  owner: OWNER,
  developer: DEVELOPER,
  viewer: VIEWER,
})

/** What a role may hand out without holding it itself: an owner, the permissions granted apart. */
export function grantableApart(role: Role | null): ReadonlySet<Permission> {
  return new Set(role === 'owner' ? GRANTED_APART : [])
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value)
}

export function narrowToScope(permissions: Iterable<Permission>, scope: Scope): Permission[] {
  const out = [...new Set(permissions)]
  return scope === 'read' ? out.filter(isReadOnly) : out
}
