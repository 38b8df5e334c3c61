/** Single sign-on: the environment's OpenID Connect provider (more come from `automaton oidc add`). */
import { type GroupRole, parseGroupRoles } from '../domain/oidc.ts'
import { bool, ConfigError, type ConfigEntryOf, list, nullable, optionalHttpUrl, str } from './parsers.ts'

export interface OidcConfig {
  oidcIssuer: string | null
  oidcClientId: string | null
  oidcClientSecret: string | null
  oidcGroupsClaim: string
  oidcGroupRoles: GroupRole[]
  oidcScopes: string[]
  oidcName: string
  oidcJit: boolean
}

const groupRoles = (raw: string, name: string): GroupRole[] => {
  try {
    return parseGroupRoles(raw)
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`)
  }
}

export const OIDC_ENTRIES: readonly ConfigEntryOf<OidcConfig>[] = [
  {
    env: 'AUTOMATON_OIDC_ISSUER',
    key: 'oidcIssuer',
    default: '',
    description:
      'The issuer URL of the OpenID Connect provider people sign in with (discovery at `/.well-known/openid-configuration`); empty: no single sign-on from the environment. Plain `http` only for hosts listed in `AUTOMATON_ALLOW_PRIVATE_TARGETS`.',
    parse: optionalHttpUrl,
  },
  {
    env: 'AUTOMATON_OIDC_CLIENT_ID',
    key: 'oidcClientId',
    default: '',
    description: 'The client id this server has at the OpenID Connect provider.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_OIDC_CLIENT_SECRET',
    key: 'oidcClientSecret',
    default: '',
    description: 'The client secret that goes with `AUTOMATON_OIDC_CLIENT_ID`.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_OIDC_GROUPS_CLAIM',
    key: 'oidcGroupsClaim',
    default: 'groups',
    description: "The claim of the provider's ID token (or userinfo answer) that lists the person's groups.",
    parse: str,
  },
  {
    env: 'AUTOMATON_OIDC_GROUP_ROLES',
    key: 'oidcGroupRoles',
    default: '',
    description:
      '`group=organization:role` pairs, comma-separated (the organization by id or name): members of the group get the role in the organization at every sign-in; with several, the highest wins (owner > developer > viewer).',
    parse: groupRoles,
  },
  {
    env: 'AUTOMATON_OIDC_SCOPES',
    key: 'oidcScopes',
    default: '',
    description:
      'Scopes asked for beyond `openid email profile`, comma- or space-separated (`groups`, `offline_access`).',
    parse: (raw, name) => list(raw.replace(/\s+/g, ','), name),
  },
  {
    env: 'AUTOMATON_OIDC_NAME',
    key: 'oidcName',
    default: 'SSO',
    description: 'What the console\'s sign-in button says: "Sign in with <name>".',
    parse: str,
  },
  {
    env: 'AUTOMATON_OIDC_JIT',
    key: 'oidcJit',
    default: 'true',
    description:
      'Whether a first sign-in creates the person (when the provider says the email is verified and a group gives them an organization); false: only people who exist already sign in.',
    parse: bool,
  },
]
