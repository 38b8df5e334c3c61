/**
 * The identity providers people sign in with: the environment's (`default`, from
 * `AUTOMATON_OIDC_*`) and those an operator added with `automaton oidc add` (client secret sealed).
 * Each provider's metadata comes from discovery at its issuer URL, through `openid-client`, and is
 * kept for the life of the process (a failed discovery is tried again at the next sign-in).
 */
import * as oidc from 'openid-client'
import { ConfigError } from '../config/parsers.ts'
import { formatGroupRoles, type GroupRole, type OidcProviderSettings, parseGroupRoles } from '../domain/oidc.ts'
import { badRequest, conflict, errorMessage, isAppError, notFound, unavailable } from '../errors.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import { hookUrlProblem } from '../security/hook-url.ts'
import { type OidcProviderRow, oidcProviders } from '../store/oidc.ts'

export const DEFAULT_PROVIDER = 'default'

export interface OidcProviders {
  /** Every provider, the environment's first. */
  list(): Promise<OidcProviderSettings[]>
  /** A provider's settings and its discovered configuration; 404 for an unknown name, 503 when discovery fails. */
  open(name: string): Promise<{ settings: OidcProviderSettings; config: oidc.Configuration }>
  /** Adds a provider (the CLI): its issuer is checked by discovery first. */
  add(settings: OidcProviderSettings): Promise<OidcProviderSettings>
  remove(name: string): Promise<{ name: string; removed: true }>
}

export interface OidcProvidersDeps {
  store: Store
  clock: Clock
  secretBox: SecretBox
  /** The environment's provider, when `AUTOMATON_OIDC_ISSUER` is set. */
  environment: OidcProviderSettings | null
  /** Hosts that may be reached over plain http (`AUTOMATON_ALLOW_PRIVATE_TARGETS`). */
  allowList: readonly string[]
}

/** Refuses an issuer that is not https, unless the operator listed its host. */
export function checkIssuer(issuer: string, allowList: readonly string[]): void {
  const problem = hookUrlProblem(issuer, { allowHttp: false, allowList })
  if (problem) throw badRequest(`the issuer ${issuer} ${problem} (AUTOMATON_ALLOW_PRIVATE_TARGETS)`)
}

export function createOidcProviders(deps: OidcProvidersDeps): OidcProviders {
  const { store, secretBox } = deps
  const discovered = new Map<string, { key: string; config: Promise<oidc.Configuration> }>()

  async function settingsOf(row: OidcProviderRow): Promise<OidcProviderSettings> {
    return {
      name: row.name,
      displayName: row.display_name,
      issuer: row.issuer,
      clientId: row.client_id,
      clientSecret: await secretBox.open(row.sealed_client_secret),
      groupsClaim: row.groups_claim,
      groupRoles: parseGroupRoles(row.group_roles),
      scopes: row.scopes.split(' ').filter(Boolean),
      jit: row.jit === 1,
    }
  }

  function discover(settings: OidcProviderSettings): Promise<oidc.Configuration> {
    checkIssuer(settings.issuer, deps.allowList)
    const key = `${settings.issuer}\n${settings.clientId}\n${settings.clientSecret}`
    const known = discovered.get(settings.name)
    if (known?.key === key) return known.config
    const insecure = new URL(settings.issuer).protocol === 'http:'
    const config = oidc.discovery(
      new URL(settings.issuer),
      settings.clientId,
      settings.clientSecret,
      undefined,
      insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
    )
    discovered.set(settings.name, { key, config })
    config.catch(() => discovered.delete(settings.name))
    return config
  }

  async function settingsNamed(name: string): Promise<OidcProviderSettings> {
    if (name === DEFAULT_PROVIDER && deps.environment) return deps.environment
    const row = await oidcProviders.byName(store, name)
    if (!row) throw notFound('identity provider')
    return settingsOf(row)
  }

  return {
    async list() {
      const added = await Promise.all((await oidcProviders.all(store)).map(settingsOf))
      return deps.environment ? [deps.environment, ...added] : added
    },
    async open(name) {
      const settings = await settingsNamed(name)
      try {
        return { settings, config: await discover(settings) }
      } catch (error) {
        if (isAppError(error)) throw error
        throw unavailable(`the identity provider ${settings.name} cannot be reached: ${errorMessage(error)}`)
      }
    },
    async add(settings) {
      if (settings.name === DEFAULT_PROVIDER) throw conflict("`default` is the environment's provider")
      if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(settings.name))
        throw badRequest('a provider name is lowercase letters, digits and dashes')
      await discover(settings).catch((error) => {
        if (isAppError(error)) throw error
        throw badRequest(`discovery at ${settings.issuer} failed: ${errorMessage(error)}`)
      })
      const sealed = await secretBox.seal(settings.clientSecret)
      const added = await store.write(async (tx) => {
        if (await oidcProviders.byName(tx, settings.name)) return false
        await oidcProviders.insert(tx, {
          name: settings.name,
          display_name: settings.displayName,
          issuer: settings.issuer,
          client_id: settings.clientId,
          sealed_client_secret: sealed,
          groups_claim: settings.groupsClaim,
          group_roles: formatGroupRoles(settings.groupRoles),
          scopes: settings.scopes.join(' '),
          jit: settings.jit ? 1 : 0,
          created_at: deps.clock.now(),
        })
        return true
      })
      if (!added) throw conflict(`a provider named ${settings.name} exists`)
      return settings
    },
    async remove(name) {
      const removed = await store.write((tx) => oidcProviders.remove(tx, name))
      if (removed === 0) throw notFound('identity provider')
      discovered.delete(name)
      return { name, removed: true as const }
    },
  }
}

/** The environment's provider (`AUTOMATON_OIDC_*`), or null when no issuer is set. */
export function environmentProvider(config: {
  oidcIssuer: string | null
  oidcClientId: string | null
  oidcClientSecret: string | null
  oidcGroupsClaim: string
  oidcGroupRoles: readonly GroupRole[]
  oidcScopes: readonly string[]
  oidcName: string
  oidcJit: boolean
}): OidcProviderSettings | null {
  if (!config.oidcIssuer) return null
  if (!config.oidcClientId) throw new ConfigError('AUTOMATON_OIDC_ISSUER needs AUTOMATON_OIDC_CLIENT_ID')
  return {
    name: DEFAULT_PROVIDER,
    displayName: config.oidcName,
    issuer: config.oidcIssuer,
    clientId: config.oidcClientId,
    clientSecret: config.oidcClientSecret ?? '',
    groupsClaim: config.oidcGroupsClaim,
    groupRoles: config.oidcGroupRoles,
    scopes: config.oidcScopes,
    jit: config.oidcJit,
  }
}
