/**
 * A current access token for an OAuth2 connector: read sealed from its row, refreshed (or, for
 * client credentials, minted again) when it expires within a minute. One process at a time
 * talks to the provider for a connector: it takes the row's lease; the others wait for the new
 * token. A refresh the provider refuses marks the connector `reconnect_needed`.
 */
import type { OpenedConnector } from '../domain/connector.ts'
import { ConnectorUnavailableError, errorMessage } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import { sleepOn } from '../ports/clock.ts'
import type { HttpClient } from '../ports/http-client.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import type { ConnectorRow } from '../store/connectors.ts'
import { type OAuth2TokenRow, type OAuth2Tokens, oauth2Tokens } from '../store/oauth2-tokens.ts'
import type { ResolvedOAuth2 } from './connector-oauth2-settings.ts'
import { OAuth2RefusedError, requestToken, type TokenAnswer } from './oauth2-protocol.ts'

/** A token expiring within this much is refreshed before it is handed out. */
export const REFRESH_AHEAD_MS = 60_000
/** How long a refresh may hold the lease; a holder that died frees it after this. */
const LEASE_MS = 30_000
/** How often a process waiting for another's refresh looks at the row again. */
const WAIT_STEP_MS = 100

export interface TokenDeps {
  store: Store
  clock: Clock
  secretBox: SecretBox
  http: HttpClient
  /** This process's name in refresh leases. */
  owner: string
}

/** Tells apart this process's refreshes in leases: two openings in one process wait for each other too. */
let attempts = 0

/** Who a message is about: the connector's name and id. */
const named = (row: ConnectorRow) => `connector "${row.name}" (${row.id})`

/** The sealed columns of a token answer (the expiry read against the clock). */
export async function sealedTokens(
  deps: Pick<TokenDeps, 'secretBox'>,
  answer: TokenAnswer,
  now: number,
): Promise<OAuth2Tokens> {
  return {
    sealed_access_token: await deps.secretBox.seal(answer.accessToken),
    sealed_refresh_token: answer.refreshToken ? await deps.secretBox.seal(answer.refreshToken) : null,
    expires_at: answer.expiresIn === null ? null : now + answer.expiresIn * 1000,
    scope: answer.scope,
  }
}

const usable = (row: OAuth2TokenRow | undefined, now: number, rejected: string | null, opened: string | null) =>
  !!row?.sealed_access_token &&
  row.state === 'connected' &&
  (row.expires_at === null || row.expires_at - now > REFRESH_AHEAD_MS) &&
  // A token a provider has just refused is not current, whatever its expiry says.
  (rejected === null || opened !== rejected)

/**
 * The connector's current access token. `rejected` is a token the provider has just refused
 * (a 401, or a body the type's `isExpired` recognizes): it is replaced even before its expiry.
 */
export async function currentAccessToken(
  deps: TokenDeps,
  row: ConnectorRow,
  settings: ResolvedOAuth2,
  rejected: string | null = null,
): Promise<string> {
  const deadline = deps.clock.now() + LEASE_MS * 2
  const holder = { ...deps, owner: `${deps.owner}:${++attempts}` }
  for (;;) {
    const now = deps.clock.now()
    const tokens = await oauth2Tokens.byConnector(deps.store, row.id)
    refuseUnusable(row, settings, tokens)
    const token = tokens?.sealed_access_token ? await deps.secretBox.open(tokens.sealed_access_token) : null
    if (usable(tokens, now, rejected, token)) return token!
    if (await takeLease(holder, row, now)) return renew(holder, row, settings, rejected)
    if (now > deadline) throw new Error(`${named(row)}: another process is still refreshing its token`)
    await sleepOn(deps.clock, WAIT_STEP_MS)
  }
}

/** An authorization-code connector that has no tokens, or whose tokens the provider refused, cannot be used. */
function refuseUnusable(row: ConnectorRow, settings: ResolvedOAuth2, tokens: OAuth2TokenRow | undefined): void {
  if (settings.grant !== 'authorization_code') return
  if (!tokens || tokens.state === 'pending')
    throw new ConnectorUnavailableError(
      `${named(row)} is not connected yet: authorize it (GET /v1/connectors/${row.id}/oauth2/start)`,
    )
  if (tokens.state === 'reconnect_needed')
    throw new ConnectorUnavailableError(
      `${named(row)} needs to be reconnected (GET /v1/connectors/${row.id}/oauth2/start)${tokens.last_error ? `: ${tokens.last_error}` : ''}`,
    )
}

async function takeLease(deps: TokenDeps, row: ConnectorRow, now: number): Promise<boolean> {
  return deps.store.write(async (tx) => {
    await oauth2Tokens.ensure(tx, row.id, row.organization_id, now)
    return oauth2Tokens.lease(tx, { connectorId: row.id, owner: deps.owner, now, until: now + LEASE_MS })
  })
}

/** Under the lease: asks the provider for a new token, stores it and gives the lease back. */
async function renew(deps: TokenDeps, row: ConnectorRow, settings: ResolvedOAuth2, rejected: string | null) {
  const { store, clock } = deps
  try {
    // Another process may have renewed the token between our read and our lease.
    const tokens = await oauth2Tokens.byConnector(store, row.id)
    const token = tokens?.sealed_access_token ? await deps.secretBox.open(tokens.sealed_access_token) : null
    if (usable(tokens, clock.now(), rejected, token)) {
      await store.write((tx) => oauth2Tokens.release(tx, row.id, deps.owner, null, clock.now()))
      return token!
    }
    const answer = await askProvider(deps, settings, tokens)
    const sealed = await sealedTokens(deps, answer, clock.now())
    await store.write((tx) => oauth2Tokens.store(tx, row.id, sealed, clock.now()))
    return answer.accessToken
  } catch (error) {
    const message = errorMessage(error)
    if (error instanceof OAuth2RefusedError && settings.grant === 'authorization_code') {
      await store.write((tx) => oauth2Tokens.needReconnect(tx, row.id, message, clock.now()))
      throw new ConnectorUnavailableError(
        `${named(row)} needs to be reconnected (GET /v1/connectors/${row.id}/oauth2/start): the provider refused its refresh token (${message})`,
      )
    }
    await store.write((tx) => oauth2Tokens.release(tx, row.id, deps.owner, message, clock.now()))
    if (error instanceof OAuth2RefusedError)
      throw new ConnectorUnavailableError(`${named(row)}: the provider refused its client credentials (${message})`)
    throw new Error(`${named(row)}: could not renew its access token: ${message}`)
  }
}

async function askProvider(
  deps: TokenDeps,
  settings: ResolvedOAuth2,
  tokens: OAuth2TokenRow | undefined,
): Promise<TokenAnswer> {
  if (settings.grant === 'client_credentials')
    return requestToken(deps.http, settings.tokenUrl, settings.client, {
      grant_type: 'client_credentials',
      ...(settings.scopes.length > 0 ? { scope: settings.scopes.join(' ') } : {}),
    })
  if (!tokens?.sealed_refresh_token)
    throw new OAuth2RefusedError('invalid_grant', 'the access token expired and the provider gave no refresh token')
  return requestToken(deps.http, settings.tokenUrl, settings.client, {
    grant_type: 'refresh_token',
    refresh_token: await deps.secretBox.open(tokens.sealed_refresh_token),
  })
}

/** The opened connector as a node sees it: with `accessToken`, which is also masked in run records. */
export function withAccessToken(opened: OpenedConnector, accessToken: string): OpenedConnector {
  return { ...opened, data: { ...opened.data, accessToken }, secrets: [...opened.secrets, accessToken] }
}
