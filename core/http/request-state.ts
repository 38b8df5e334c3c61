/**
 * Per-request facts that several plugins need: the request id, the raw body text (for
 * signature checks), the client address (set by the server adapter), the start time.
 * Kept in a WeakMap keyed by the Request, so nothing outlives the request.
 */
export interface RequestState {
  id: string
  startedAt: number
  rawBody?: string
  clientAddress?: string | null
}

const states = new WeakMap<Request, RequestState>()
const addresses = new WeakMap<Request, string>()

export function stateOf(request: Request): RequestState | undefined {
  return states.get(request)
}

export function setState(request: Request, state: RequestState): void {
  states.set(request, state)
}

/** Server adapters call this before handing a request to the app. */
export function setClientAddress(request: Request, address: string | null | undefined): void {
  if (address) addresses.set(request, address)
}

export function clientAddressOf(request: Request): string | null {
  return addresses.get(request) ?? null
}

export function rawBodyOf(request: Request): string {
  return states.get(request)?.rawBody ?? ''
}
