/**
 * Calls of the help-desk API with the connector's current access token. The token is the host's
 * (an OAuth2 connector's data carries it as `accessToken`); a 401 or an `isExpired` answer makes
 * the host renew it and send the request once more.
 */
import type { HandlerTools } from 'automaton/sdk'

/** What the calls need of a handler's context: the guarded HTTP client. */
type Http = Pick<HandlerTools, 'http'>

export interface HelpdeskSite {
  readonly siteUrl: string
}

/** The connector's access token: the host adds it to the data of an OAuth2 connector. */
function accessToken(data: object): string {
  const token = (data as { accessToken?: unknown }).accessToken
  if (typeof token !== 'string') throw new Error('the help-desk connector is not authorized yet')
  return token
}

export function helpdeskApi(ctx: Http, data: HelpdeskSite | null) {
  if (!data) throw new Error('a help-desk connector is needed')
  const headers = { authorization: `Bearer ${accessToken(data)}`, accept: 'application/json' }
  return {
    get: (path: string) => ctx.http.send({ method: 'GET', url: `${data.siteUrl}${path}`, headers }),
    delete: (path: string) => ctx.http.send({ method: 'DELETE', url: `${data.siteUrl}${path}`, headers }),
    post: (path: string, body: unknown, extra: Record<string, string> = {}) =>
      ctx.http.send({
        method: 'POST',
        url: `${data.siteUrl}${path}`,
        headers: { ...headers, 'content-type': 'application/json', ...extra },
        body: JSON.stringify(body),
      }),
  }
}

/** The JSON of a 2xx answer; any other status throws with what the help desk said. */
export function answerOf<T>(response: { status: number; body: string }, what: string): T {
  if (response.status < 200 || response.status > 299)
    throw new Error(`${what}: the help desk answered ${response.status} ${response.body.slice(0, 200)}`)
  return JSON.parse(response.body) as T
}
