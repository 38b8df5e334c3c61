/**
 * Per-request facts that several plugins need: the request id, the raw body text (for
 * signature checks), the client address, the start time. Kept in a WeakMap keyed by the
 * Request, so nothing outlives the request.
 *
 * The client address: the server adapter sets the peer's address; the app's client plugin
 * replaces it with the forwarded one when the peer is a trusted proxy (client-address.ts).
 * Everything that keys on who is asking (public run limits, lastUsedIp, sign-in throttling)
 * reads `clientAddressOf(request)` and nothing else.
 */
export interface RequestState {
  id: string
  startedAt: number
  rawBody?: string
  clientAddress?: string | null
  /** Who is calling, once authenticated (the auth middleware authenticates before the body is read). */
  principal?: unknown
}

const states = new WeakMap<Request, RequestState>()
/** The URL a request arrived with, when it had to be rewritten to be routed (see routable). */
const originalUrls = new WeakMap<Request, string>()
const addresses = new WeakMap<Request, string>()
const forwarded = new WeakMap<Request, { address: string | null; scheme: 'http' | 'https' | null }>()

export function stateOf(request: Request): RequestState | undefined {
  return states.get(request)
}

export function setState(request: Request, state: RequestState): void {
  states.set(request, state)
}

/** Server adapters call this with the peer's address before handing a request to the app. */
export function setClientAddress(request: Request, address: string | null | undefined): void {
  if (address) addresses.set(request, address)
}

/** The peer address the server adapter saw (a proxy's, when one stands in between). */
export function peerAddressOf(request: Request): string | null {
  return addresses.get(request) ?? null
}

/** The app's client plugin records what it believes about the client (see client-address.ts). */
export function setClientView(
  request: Request,
  view: { address: string | null; scheme: 'http' | 'https' | null },
): void {
  forwarded.set(request, view)
}

/** The client's address: the peer's, or the one a trusted proxy forwarded. Null when unknown. */
export function clientAddressOf(request: Request): string | null {
  const view = forwarded.get(request)
  return view ? view.address : (addresses.get(request) ?? null)
}

/** The URL as the client asked for it: with the scheme a trusted proxy forwarded (TLS ended at the proxy). */
export function clientUrlOf(request: Request): string {
  const url = originalUrls.get(request) ?? request.url
  const scheme = forwarded.get(request)?.scheme
  if (!scheme || url.startsWith(`${scheme}:`)) return url
  return `${scheme}${url.slice(url.indexOf(':'))}`
}

/**
 * The router finds a request's path by looking for the first "/" after the eleventh character of
 * its URL, so a short Host (`api`, `ab`, `api:80`) would hide every route. Such a request is
 * routed under a placeholder host; `clientUrlOf` still answers the URL the client used, and the
 * client address carries over.
 */
export function routable(request: Request): Request {
  const url = request.url
  const pathAt = url.indexOf('/', url.indexOf('//') + 2)
  if (pathAt < 0 || pathAt >= 11) return request
  const rewritten = new Request(`${url.slice(0, url.indexOf('//') + 2)}short-host.invalid${url.slice(pathAt)}`, request)
  originalUrls.set(rewritten, url)
  const address = addresses.get(request)
  if (address) addresses.set(rewritten, address)
  return rewritten
}

export function rawBodyOf(request: Request): string {
  return states.get(request)?.rawBody ?? ''
}
