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
}

const states = new WeakMap<Request, RequestState>()
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
export function setClientView(request: Request, view: { address: string | null; scheme: 'http' | 'https' | null }): void {
  forwarded.set(request, view)
}

/** The client's address: the peer's, or the one a trusted proxy forwarded. Null when unknown. */
export function clientAddressOf(request: Request): string | null {
  const view = forwarded.get(request)
  return view ? view.address : (addresses.get(request) ?? null)
}

/** The URL as the client asked for it: with the scheme a trusted proxy forwarded (TLS ended at the proxy). */
export function clientUrlOf(request: Request): string {
  const scheme = forwarded.get(request)?.scheme
  if (!scheme || request.url.startsWith(`${scheme}:`)) return request.url
  return `${scheme}${request.url.slice(request.url.indexOf(':'))}`
}

export function rawBodyOf(request: Request): string {
  return states.get(request)?.rawBody ?? ''
}
