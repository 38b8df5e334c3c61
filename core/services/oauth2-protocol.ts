/**
 * The OAuth2 wire protocol as a client (RFC 6749, PKCE of RFC 7636): the authorization URL, the
 * token endpoint's requests and answers. No store and no secret box; the token endpoint is reached
 * through the guarded HTTP client, since organizations name it.
 */
import type { HttpClient } from '../ports/http-client.ts'

/** What the token endpoint answered with a 200. */
export interface TokenAnswer {
  accessToken: string
  refreshToken: string | null
  /** Seconds, as the provider said; null when it did not. */
  expiresIn: number | null
  scope: string | null
}

/**
 * The provider refused the grant with an OAuth2 error (`invalid_grant`, `invalid_client` …):
 * trying again with the same refresh token or credentials will not help.
 */
export class OAuth2RefusedError extends Error {
  override name = 'OAuth2RefusedError'

  constructor(
    readonly error: string,
    description: string | undefined,
  ) {
    super(description ? `${error}: ${description}` : error)
  }
}

export interface OAuth2Client {
  clientId: string
  clientSecret: string
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')

/** A random value for a state or a PKCE verifier: 32 bytes, base64url (43 characters). */
export function randomValue(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)))
}

/** The S256 code challenge of a PKCE verifier. */
export async function codeChallenge(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))))
}

/** The provider's authorization URL with the request's parameters added to those it already has. */
export function authorizationRequestUrl(base: string, params: Readonly<Record<string, string>>): string {
  const url = new URL(base)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded. */
const basicAuth = (client: OAuth2Client) =>
  `Basic ${btoa(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`)}`

/**
 * A token request (`grant_type` and its parameters). The client authenticates with HTTP Basic
 * first; a provider that refuses that with `invalid_client` is asked again with the credentials
 * in the body (`client_secret_post`), the other method RFC 6749 names.
 */
export async function requestToken(
  http: HttpClient,
  tokenUrl: string,
  client: OAuth2Client,
  params: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<TokenAnswer> {
  const post = (headers: Record<string, string>, body: Record<string, string>) =>
    http.send({
      method: 'POST',
      url: tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: new URLSearchParams(body).toString(),
      signal,
    })
  let response = await post({ authorization: basicAuth(client) }, { ...params })
  if (response.status === 401 || (response.status === 400 && errorOf(response.body)?.error === 'invalid_client'))
    response = await post({}, { ...params, client_id: client.clientId, client_secret: client.clientSecret })
  return answerOf(response.status, response.body)
}

function errorOf(body: string): { error: string; error_description?: string } | null {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown }
    if (typeof parsed.error !== 'string') return null
    return {
      error: parsed.error,
      ...(typeof parsed.error_description === 'string' ? { error_description: parsed.error_description } : {}),
    }
  } catch {
    return null
  }
}

function answerOf(status: number, body: string): TokenAnswer {
  if (status !== 200) {
    const error = errorOf(body)
    if (error && status >= 400 && status < 500) throw new OAuth2RefusedError(error.error, error.error_description)
    throw new Error(`the token endpoint answered ${status}: ${body.slice(0, 200)}`)
  }
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(body) as Record<string, unknown>
  } catch {
    throw new Error('the token endpoint answered 200 without JSON')
  }
  if (typeof parsed.access_token !== 'string' || parsed.access_token === '')
    throw new Error('the token endpoint answered without an access_token')
  const expiresIn = Number(parsed.expires_in)
  return {
    accessToken: parsed.access_token,
    refreshToken: typeof parsed.refresh_token === 'string' ? parsed.refresh_token : null,
    expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : null,
    scope: typeof parsed.scope === 'string' ? parsed.scope : null,
  }
}
