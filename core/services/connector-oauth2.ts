/**
 * OAuth2 connectors: the authorization a person runs in the browser (authorization code with
 * PKCE: `start` sends them to the provider, `callback` takes the code back), the tokens kept
 * sealed per connector, and the connector opened for a node with a current access token
 * (connector-oauth2-tokens.ts). Refresh tokens never leave this service.
 */
import type { ConnectorOAuth2Status, OpenedConnector } from '../domain/connector.ts'
import { AppError, badRequest, conflict, errorMessage, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { HttpClient } from '../ports/http-client.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import type { Registry } from '../plugin/registry.ts'
import { sha256Hex } from '../security/hash.ts'
import { type ConnectorRow, connectors } from '../store/connectors.ts'
import { oauth2Authorizations, oauth2Tokens } from '../store/oauth2-tokens.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import type { Data } from './connector-data.ts'
import { oauth2SettingsOf, type ResolvedOAuth2, resolveOAuth2 } from './connector-oauth2-settings.ts'
import { currentAccessToken, sealedTokens, withAccessToken } from './connector-oauth2-tokens.ts'
import {
  authorizationRequestUrl,
  codeChallenge,
  OAuth2RefusedError,
  randomValue,
  requestToken,
} from './oauth2-protocol.ts'
import { guarded, type OperationTable } from './operations.ts'

/** How long a started authorization may wait for its callback. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000
/** The callback's path under the public URL: the redirect URI an operator registers with a provider. */
export const CALLBACK_PATH = '/v1/connectors/oauth2/callback'

export interface ConnectorOAuth2Deps {
  store: Store
  clock: Clock
  registry: Registry
  secretBox: SecretBox
  /** The guarded client: token endpoints are named by organizations. */
  http: HttpClient
  /** AUTOMATON_PUBLIC_URL: where providers send people back; null when the operator has not set it. */
  publicUrl: string | null
  /** This process's name in refresh leases. */
  owner: string
}

/** What the provider's redirect back carries. */
export interface OAuth2CallbackQuery {
  code?: string
  state?: string
  error?: string
  error_description?: string
}

export interface ConnectorOAuth2Service {
  /** The provider's authorization URL for a connector (authorization code with PKCE); 409 when it cannot start. */
  start(caller: Principal, connectorId: string): Promise<{ authorizationUrl: string }>
  /** The provider's redirect back: the state is the credential (single use); the code becomes tokens. */
  callback(query: OAuth2CallbackQuery): Promise<{ connectorId: string; organizationId: string }>
  /** An OAuth2 connector's state for the API; undefined for a connector of another kind. */
  statusOf(row: ConnectorRow): Promise<ConnectorOAuth2Status | undefined>
  /** The connector opened for a node: an OAuth2 one with a current `accessToken`, others as they are. */
  open(row: ConnectorRow, opened: OpenedConnector): Promise<OpenedConnector>
}

const OPERATIONS: OperationTable<ConnectorOAuth2Service> = {
  start: ['connector:update'],
  // The state authenticates the callback; the others serve the connector service and the engine.
  callback: null,
  statusOf: null,
  open: null,
}

export function createConnectorOAuth2Service(deps: ConnectorOAuth2Deps): ConnectorOAuth2Service {
  return guarded<ConnectorOAuth2Service>('connector-oauth2', OPERATIONS, {
    start: (caller, connectorId) => start(deps, caller, connectorId),
    callback: (query) => callback(deps, query),
    async statusOf(row) {
      if (!oauth2SettingsOf(deps.registry, row.type)) return undefined
      const tokens = await oauth2Tokens.byConnector(deps.store, row.id)
      return {
        state: tokens?.state ?? 'pending',
        // Unset strings are "", never null (the specification's rule for every resource).
        expiresAt: tokens?.expires_at ? iso(tokens.expires_at) : '',
        scope: tokens?.scope ?? '',
        lastError: tokens?.last_error ?? '',
      }
    },
    open: (row, opened) => open(deps, row, opened),
  })
}

/** The connector's OAuth2 settings against its data (undefined when its type is not OAuth2). */
function settingsOf(deps: Pick<ConnectorOAuth2Deps, 'registry'>, row: ConnectorRow, data: Data) {
  const settings = oauth2SettingsOf(deps.registry, row.type)
  return settings ? resolveOAuth2(settings, data) : undefined
}

async function open(deps: ConnectorOAuth2Deps, row: ConnectorRow, opened: OpenedConnector): Promise<OpenedConnector> {
  const settings = settingsOf(deps, row, opened.data)
  if (!settings) return opened
  const withToken = (token: string): OpenedConnector => ({
    ...withAccessToken(opened, token),
    renew: async (rejected) => withToken(await currentAccessToken(deps, row, settings, rejected)),
    ...(settings.isExpired ? { isExpired: settings.isExpired as OpenedConnector['isExpired'] } : {}),
  })
  return withToken(await currentAccessToken(deps, row, settings))
}

async function start(deps: ConnectorOAuth2Deps, caller: Principal, connectorId: string) {
  if (!deps.publicUrl)
    throw conflict(
      'set AUTOMATON_PUBLIC_URL to authorize OAuth2 connectors: the provider sends people back to its callback',
    )
  const row = await connectors.byId(deps.store, caller.organizationId, connectorId)
  if (!row) throw notFound('connector')
  const settings = await authorizationSettings(deps, row)
  const state = randomValue()
  const verifier = randomValue()
  const redirectUri = `${deps.publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`
  const now = deps.clock.now()
  const sealedVerifier = await deps.secretBox.seal(verifier)
  const stateHash = await sha256Hex(state)
  await deps.store.write(async (tx) => {
    await oauth2Authorizations.expire(tx, now - AUTHORIZATION_TTL_MS)
    await oauth2Authorizations.insert(tx, {
      state_hash: stateHash,
      connector_id: row.id,
      organization_id: row.organization_id,
      sealed_verifier: sealedVerifier,
      redirect_uri: redirectUri,
      created_at: now,
    })
    await oauth2Tokens.ensure(tx, row.id, row.organization_id, now)
  })
  const authorizationUrl = authorizationRequestUrl(settings.authorizationUrl!, {
    ...settings.authorizationParams,
    response_type: 'code',
    client_id: settings.client.clientId,
    redirect_uri: redirectUri,
    ...(settings.scopes.length > 0 ? { scope: settings.scopes.join(' ') } : {}),
    state,
    code_challenge: await codeChallenge(verifier),
    code_challenge_method: 'S256',
  })
  return { authorizationUrl }
}

/** The settings of a connector a person can authorize; 409 for any other. */
async function authorizationSettings(deps: ConnectorOAuth2Deps, row: ConnectorRow): Promise<ResolvedOAuth2> {
  const settings = settingsOf(deps, row, await dataOf(deps, row))
  if (settings?.grant !== 'authorization_code')
    throw conflict(
      `connector ${row.id} is a ${row.type} connector, which is not authorized in the browser (only OAuth2 types with the authorization_code grant are)`,
    )
  if (!settings.authorizationUrl)
    throw conflict(`connector ${row.id} has no authorization URL: set authorizationUrl in its data`)
  return settings
}

async function dataOf(deps: Pick<ConnectorOAuth2Deps, 'secretBox'>, row: ConnectorRow): Promise<Data> {
  const secrets = row.sealed_secrets ? (JSON.parse(await deps.secretBox.open(row.sealed_secrets)) as Data) : {}
  return { ...(JSON.parse(row.public_data) as Data), ...secrets }
}

async function callback(deps: ConnectorOAuth2Deps, query: OAuth2CallbackQuery) {
  if (!query.state) throw badRequest('the callback has no state', [{ path: '/state', message: 'is required' }])
  const now = deps.clock.now()
  const stateHash = await sha256Hex(query.state)
  const pending = await deps.store.write((tx) => oauth2Authorizations.take(tx, stateHash))
  if (!pending || pending.created_at < now - AUTHORIZATION_TTL_MS)
    throw badRequest('unknown, used or expired authorization state: start the authorization again', [
      { path: '/state', message: 'does not name an authorization under way' },
    ])
  const row = await connectors.byId(deps.store, pending.organization_id, pending.connector_id)
  if (!row) throw badRequest('the connector this authorization was for no longer exists')
  const done = { connectorId: row.id, organizationId: row.organization_id }
  if (query.error) {
    const message = query.error_description ? `${query.error}: ${query.error_description}` : query.error
    await deps.store.write((tx) => oauth2Tokens.needReconnect(tx, row.id, message, now))
    throw badRequest(`the provider did not authorize connector ${row.id}: ${message}`)
  }
  if (!query.code) throw badRequest('the callback has no code', [{ path: '/code', message: 'is required' }])
  const settings = await authorizationSettings(deps, row)
  try {
    const answer = await requestToken(deps.http, settings.tokenUrl, settings.client, {
      grant_type: 'authorization_code',
      code: query.code,
      redirect_uri: pending.redirect_uri,
      code_verifier: await deps.secretBox.open(pending.sealed_verifier),
    })
    const sealed = await sealedTokens(deps, answer, deps.clock.now())
    await deps.store.write((tx) => oauth2Tokens.store(tx, row.id, sealed, deps.clock.now()))
    return done
  } catch (error) {
    const message = errorMessage(error)
    await deps.store.write((tx) => oauth2Tokens.needReconnect(tx, row.id, message, deps.clock.now()))
    if (error instanceof OAuth2RefusedError)
      throw badRequest(`the provider refused the authorization code of connector ${row.id}: ${message}`)
    throw new AppError(502, `could not exchange the authorization code of connector ${row.id}: ${message}`)
  }
}
