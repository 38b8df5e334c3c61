/** Believes X-Forwarded-For and X-Forwarded-Proto only from trusted proxies; see client-address.ts. */
import { Elysia } from 'elysia'
import { createProxyTrust } from '../client-address.ts'
import { peerAddressOf, setClientView } from '../request-state.ts'

export function clientPlugin(trustedProxies: readonly string[]) {
  const trust = createProxyTrust(trustedProxies)
  return new Elysia({ name: 'client' }).onRequest(({ request }) => {
    setClientView(request, trust(peerAddressOf(request), request.headers))
  })
}
