/**
 * Roles, permissions and scopes. A key's effective permissions are the permissions of its
 * service account (or of its role) narrowed by its scope: `read` keeps only the
 * `…:read` and `…:stream` permissions.
 */
export const PERMISSIONS = [
  'org:read', 'org:update',
  'member:invite', 'member:remove', 'member:update_role',
  'workflow:create', 'workflow:read', 'workflow:update', 'workflow:delete', 'workflow:execute', 'workflow:publish',
  'connector:create', 'connector:read', 'connector:update', 'connector:delete',
  'action:read',
  'run:read', 'run:stream', 'run:cancel',
  'execution:read', 'execution:stream', 'execution:webhook',
  'ai:chat', 'wallet:read', 'wallet:write', 'wallet:withdraw',
  'apikey:create', 'apikey:read', 'apikey:revoke',
  'service_account:read', 'service_account:write',
  'stats:read', 'template:write', 'template:moderate',
  'card:read', 'card:write', 'card:disclose',
] as const

export type Permission = (typeof PERMISSIONS)[number]

export const ROLES = ['owner', 'developer', 'viewer'] as const
export type Role = (typeof ROLES)[number]

export const SCOPES = ['read', 'read-write'] as const
export type Scope = (typeof SCOPES)[number]

const isReadOnly = (p: Permission) => p.endsWith(':read') || p.endsWith(':stream')

const VIEWER: readonly Permission[] = PERMISSIONS.filter(isReadOnly)
const DEVELOPER: readonly Permission[] = PERMISSIONS.filter(
  (p) => !['org:update', 'member:invite', 'member:remove', 'member:update_role', 'template:moderate', 'wallet:withdraw', 'card:write', 'card:disclose'].includes(p),
)

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = Object.freeze({
  owner: PERMISSIONS,
  developer: DEVELOPER,
  viewer: VIEWER,
})

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value)
}

export function narrowToScope(permissions: Iterable<Permission>, scope: Scope): Permission[] {
  const out = [...new Set(permissions)]
  return scope === 'read' ? out.filter(isReadOnly) : out
}
