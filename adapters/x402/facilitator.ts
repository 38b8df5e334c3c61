/** The facilitator port over HTTP, as the x402 reference facilitator serves it (`/verify`, `/settle`). */
import type { Facilitator, FacilitatorRequest } from '../../core/ports/facilitator.ts'

export function createHttpFacilitator(options: { url: string; timeoutMs: number; fetch?: typeof fetch }): Facilitator {
  const base = options.url.replace(/\/+$/, '')
  const call = async (path: string, request: FacilitatorRequest): Promise<Record<string, unknown>> => {
    const response = await (options.fetch ?? fetch)(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(options.timeoutMs),
    })
    const text = await response.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new Error(`the facilitator answered ${path} with ${response.status} and no JSON`)
    }
    if (typeof body !== 'object' || body === null)
      throw new Error(`the facilitator answered ${path} with ${response.status} and no object`)
    return body as Record<string, unknown>
  }
  return {
    url: base,
    async verify(request) {
      const body = await call('/verify', request)
      return body.isValid === true
        ? { isValid: true }
        : { isValid: false, invalidReason: String(body.invalidReason ?? 'invalid_payload') }
    },
    async settle(request) {
      const body = await call('/settle', request)
      if (body.success === true && typeof body.transaction === 'string' && /^0x[0-9a-fA-F]{64}$/.test(body.transaction))
        return { success: true, transaction: body.transaction }
      if (body.success === true) throw new Error('the facilitator said it settled but named no transaction')
      return { success: false, errorReason: String(body.errorReason ?? 'settlement_failed') }
    },
  }
}
