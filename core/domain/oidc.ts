/**
 * OpenID Connect sign-in, the parts every layer shares: a provider's settings, and how the
 * provider's groups map to organizations and roles (`group=organization:role` pairs).
 */
import { ROLES, type Role } from './permissions.ts'

/** One group's grant: its members get `role` in `organization` (an id or a name). */
export interface GroupRole {
  group: string
  organization: string
  role: Role
}

/** An identity provider, from the environment (`default`) or added with the CLI. */
export interface OidcProviderSettings {
  /** `default` for the environment's provider; the CLI names the others. */
  name: string
  /** What the sign-in button says. */
  displayName: string
  issuer: string
  clientId: string
  clientSecret: string
  /** The claim of the ID token (or the userinfo answer) that lists the person's groups. */
  groupsClaim: string
  groupRoles: readonly GroupRole[]
  /** Scopes asked for beyond `openid email profile`. */
  scopes: readonly string[]
  /** Whether a first sign-in creates the person. */
  jit: boolean
}

/** Roles from the most to the least powerful: when groups give several, the first wins. */
const RANK: readonly Role[] = ['owner', 'developer', 'viewer']

/**
 * Parses `group=organization:role` pairs, comma-separated; the organization is the text between
 * the first `=` and the last `:` (an organization whose name holds `:`, `,` or `=` is named by id).
 */
export function parseGroupRoles(raw: string): GroupRole[] {
  const out: GroupRole[] = []
  for (const pair of raw.split(',')) {
    const text = pair.trim()
    if (text === '') continue
    const eq = text.indexOf('=')
    const colon = text.lastIndexOf(':')
    if (eq <= 0 || colon <= eq + 1) throw new Error(`"${text}" is not group=organization:role`)
    const role = text.slice(colon + 1).trim() as Role
    if (!ROLES.includes(role)) throw new Error(`"${text}": the role must be one of ${ROLES.join(', ')}`)
    out.push({ group: text.slice(0, eq).trim(), organization: text.slice(eq + 1, colon).trim(), role })
  }
  return out
}

export const formatGroupRoles = (roles: readonly GroupRole[]): string =>
  roles.map((r) => `${r.group}=${r.organization}:${r.role}`).join(',')

/**
 * The role each mapped organization gives a person in `groups`: the highest of their groups'
 * (owner > developer > viewer). Organizations are keyed as the mapping names them.
 */
export function rolesOfGroups(mapping: readonly GroupRole[], groups: readonly string[]): Map<string, Role> {
  const member = new Set(groups)
  const out = new Map<string, Role>()
  for (const grant of mapping) {
    if (!member.has(grant.group)) continue
    const held = out.get(grant.organization)
    if (!held || RANK.indexOf(grant.role) < RANK.indexOf(held)) out.set(grant.organization, grant.role)
  }
  return out
}
