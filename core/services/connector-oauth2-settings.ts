/**
 * An OAuth2 connector type's settings read against one connector's data: the grant, the
 * provider's URLs, the scopes and the client's credentials. Pure functions.
 */
import type { ConnectorData } from '../plugin/contexts.ts'
import type { OAuth2Grant, OAuth2Settings } from '../plugin/lifecycle.ts'
import type { Registry } from '../plugin/registry.ts'
import type { OAuth2Client } from './oauth2-protocol.ts'

/** A connector's OAuth2 settings, resolved against its data. */
export interface ResolvedOAuth2 {
  grant: OAuth2Grant
  authorizationUrl: string | null
  tokenUrl: string
  scopes: readonly string[]
  authorizationParams: Readonly<Record<string, string>>
  client: OAuth2Client
  isExpired?: OAuth2Settings['isExpired']
}

/** The OAuth2 settings of a connector type, or undefined when it is not an OAuth2 type. */
export function oauth2SettingsOf(registry: Registry, type: string): OAuth2Settings | undefined {
  return (registry.connector(type) as { oauth2?: OAuth2Settings } | undefined)?.oauth2
}

const fromData = <T>(value: T | ((data: ConnectorData) => T), data: ConnectorData): T =>
  typeof value === 'function' ? (value as (data: ConnectorData) => T)(data) : value

const stringOf = (value: unknown) => (typeof value === 'string' ? value : '')

/** The settings for this connector's data. */
export function resolveOAuth2(settings: OAuth2Settings, data: ConnectorData): ResolvedOAuth2 {
  const scopes = settings.scopes === undefined ? [] : fromData(settings.scopes, data)
  const authorizationUrl = settings.authorizationUrl === undefined ? '' : fromData(settings.authorizationUrl, data)
  return {
    grant: fromData(settings.grant, data),
    authorizationUrl: authorizationUrl || null,
    tokenUrl: fromData(settings.tokenUrl, data),
    scopes,
    authorizationParams: settings.authorizationParams ?? {},
    client: { clientId: stringOf(data.clientId), clientSecret: stringOf(data.clientSecret) },
    ...(settings.isExpired ? { isExpired: settings.isExpired } : {}),
  }
}
