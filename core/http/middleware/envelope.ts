/** Wraps what handlers return in the success envelope, unless they return `raw(…)` or a Response. */
import { Elysia } from 'elysia'
import { stateOf } from '../request-state.ts'
import { envelope, jsonResponse, Raw } from '../responses.ts'

export function envelopePlugin() {
  return new Elysia({ name: 'envelope' }).mapResponse({ as: 'global' }, ({ responseValue, request, set }) => {
    if (responseValue instanceof Response) return
    const requestId = stateOf(request)?.id ?? ''
    // The request's own header object, completed in place rather than copied twice per answer;
    // headers a handler set (content-type included) win, as they did when spread last.
    const headers = set.headers as Record<string, string>
    headers['x-request-id'] = requestId
    if (responseValue instanceof Raw) {
      if (typeof responseValue.body === 'string') {
        headers['content-type'] ??= 'text/plain; charset=utf-8'
        return new Response(responseValue.body, { status: responseValue.status, headers })
      }
      return jsonResponse(responseValue.body, responseValue.status, headers)
    }
    // The framework adds a Set-Cookie of the request's headers to the answer itself (appending,
    // as Set-Cookie may repeat): giving it here too would send the cookie twice.
    if (headers['set-cookie'] !== undefined) {
      const { 'set-cookie': _, ...rest } = headers
      return jsonResponse(envelope(responseValue, requestId), 200, rest)
    }
    return jsonResponse(envelope(responseValue, requestId), 200, headers)
  })
}
