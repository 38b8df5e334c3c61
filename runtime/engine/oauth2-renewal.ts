/**
 * A node's outbound HTTP with an OAuth2 connector: when the provider refuses the access token
 * (a 401, or an answer the connector type's `isExpired` recognizes), the connector is renewed
 * and the request sent once more with the new token in place of the old. Later requests of the
 * same handler carry the new token too.
 */
import type { OpenedConnector } from '../../core/domain/connector.ts'
import type { HttpRequest, HttpResponse } from '../../core/plugin/sdk.ts'

type Send = (request: HttpRequest) => Promise<HttpResponse>

/** `send` as is for a connector that cannot be renewed; else the renewing one. */
export function renewingSend(opened: OpenedConnector | null, send: Send): Send {
  if (!opened?.renew) return send
  let current = opened
  /** Tokens replaced so far, each by the token now current. */
  const replaced = new Set<string>()
  const tokenOf = (c: OpenedConnector) => String(c.data.accessToken ?? '')
  const swap = (request: HttpRequest): HttpRequest => {
    if (replaced.size === 0) return request
    const token = tokenOf(current)
    const fill = (text: string) => {
      for (const old of replaced) if (old) text = text.replaceAll(old, token)
      return text
    }
    return {
      ...request,
      url: fill(request.url),
      ...(request.headers
        ? { headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, fill(v)])) }
        : {}),
    }
  }
  return async (request) => {
    const response = await send(swap(request))
    const refused = response.status === 401 || current.isExpired?.(response) === true
    if (!refused) return response
    const rejected = tokenOf(current)
    current = await current.renew!(rejected)
    if (tokenOf(current) === rejected) return response
    replaced.add(rejected)
    return send(swap(request))
  }
}
