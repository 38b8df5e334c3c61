/**
 * The x402 wire format, versions 1 and 2 together (API.md, "x402"): what a 402 answers, how a
 * payment arrives (`X-PAYMENT` v1, `PAYMENT-SIGNATURE` v2) and how the answer confirms it
 * (`X-PAYMENT-RESPONSE` / `PAYMENT-RESPONSE`). Only the `exact` scheme, with the EVM payload (an
 * EIP-3009 `transferWithAuthorization` signed by the payer); building, verifying and settling it
 * is the payment-scheme port's (core/ports/payment-scheme.ts).
 */
export interface ExactAuthorization {
  from: string
  to: string
  value: string
  validAfter: string
  validBefore: string
  nonce: string
}

export interface PaymentPayload {
  x402Version: 1 | 2
  scheme: string
  /** v1: the network name; v2: the CAIP-2 id. */
  network: string
  payload: { signature: string; authorization: ExactAuthorization }
}

export interface Requirement {
  scheme: 'exact'
  network: string
  caip2: string
  amount: string
  asset: string
  payTo: string
  resource: string
  description: string
  mimeType: string
  maxTimeoutSeconds: number
  outputSchema?: unknown
  extra: { name: string; version: string }
}

/** Error codes of the x402 reference facilitator. */
export type X402Error =
  | 'invalid_x402_version'
  | 'invalid_payload'
  | 'invalid_scheme'
  | 'invalid_network'
  | 'invalid_exact_evm_payload_signature'
  | 'invalid_exact_evm_payload_recipient_mismatch'
  | 'invalid_exact_evm_payload_authorization_valid_before'
  | 'invalid_exact_evm_payload_authorization_valid_after'
  | 'invalid_exact_evm_payload_authorization_value'
  | 'invalid_exact_evm_payload_authorization_nonce_used'
  | 'settlement_failed'
  | 'payment_required'

const b64 = (value: unknown) => btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))))
const unb64 = (text: string) =>
  JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0))))

/** The v1 body of a 402. */
export function v1Body(r: Requirement, error: X402Error | string) {
  return {
    x402Version: 1,
    error,
    accepts: [
      {
        scheme: r.scheme,
        network: r.network,
        maxAmountRequired: r.amount,
        resource: r.resource,
        description: r.description,
        mimeType: r.mimeType,
        payTo: r.payTo,
        maxTimeoutSeconds: r.maxTimeoutSeconds,
        asset: r.asset,
        ...(r.outputSchema ? { outputSchema: r.outputSchema } : {}),
        extra: r.extra,
      },
    ],
  }
}

/** The v2 `PAYMENT-REQUIRED` header. */
export function v2Header(r: Requirement, error: X402Error | string): string {
  return b64({
    x402Version: 2,
    error,
    resource: { url: r.resource, description: r.description, mimeType: r.mimeType },
    accepts: [
      {
        scheme: r.scheme,
        network: r.caip2,
        amount: r.amount,
        asset: r.asset,
        payTo: r.payTo,
        maxTimeoutSeconds: r.maxTimeoutSeconds,
        extra: r.extra,
      },
    ],
  })
}

/** The payment a request carries (v1 or v2), or a reason it cannot be read; null when it carries none. */
export function paymentOf(headers: Headers): { payment: PaymentPayload; version: 1 | 2 } | { error: X402Error } | null {
  const v1 = headers.get('x-payment')
  const v2 = headers.get('payment-signature')
  if (!v1 && !v2) return null
  try {
    const raw = unb64((v2 ?? v1)!) as Record<string, any>
    const version = v2 ? 2 : 1
    if (raw.x402Version !== version) return { error: 'invalid_x402_version' }
    // v2 names what it accepts in `accepted`; v1 puts scheme and network beside the payload.
    const scheme = version === 2 ? raw.accepted?.scheme : raw.scheme
    const network = version === 2 ? raw.accepted?.network : raw.network
    const auth = raw.payload?.authorization
    if (
      typeof scheme !== 'string' ||
      typeof network !== 'string' ||
      typeof raw.payload?.signature !== 'string' ||
      !auth
    )
      return { error: 'invalid_payload' }
    for (const field of ['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'])
      if (typeof auth[field] !== 'string' && typeof auth[field] !== 'number') return { error: 'invalid_payload' }
    const authorization: ExactAuthorization = {
      from: String(auth.from),
      to: String(auth.to),
      value: String(auth.value),
      validAfter: String(auth.validAfter),
      validBefore: String(auth.validBefore),
      nonce: String(auth.nonce),
    }
    return {
      version,
      payment: { x402Version: version, scheme, network, payload: { signature: raw.payload.signature, authorization } },
    }
  } catch {
    return { error: 'invalid_payload' }
  }
}

/** The answer's header confirming a settled payment, in the payment's version. */
export function responseHeader(
  version: 1 | 2,
  settled: { transaction: string; network: string; payer: string },
): [string, string] {
  return [version === 2 ? 'payment-response' : 'x-payment-response', b64({ success: true, ...settled })]
}

export const encodePaymentHeader = b64

/** What a facilitator's `/verify` and `/settle` take for a payment, in the payment's version. */
export function facilitatorRequest(version: 1 | 2, payment: PaymentPayload, r: Requirement) {
  if (version === 1) {
    return {
      x402Version: 1 as const,
      paymentPayload: { x402Version: 1, scheme: payment.scheme, network: payment.network, payload: payment.payload },
      paymentRequirements: v1Body(r, '').accepts[0] as Record<string, unknown>,
    }
  }
  const accepted = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(v2Header(r, '')), (c) => c.charCodeAt(0))))
    .accepts[0] as Record<string, unknown>
  return {
    x402Version: 2 as const,
    paymentPayload: {
      x402Version: 2,
      resource: { url: r.resource, description: r.description, mimeType: r.mimeType },
      accepted,
      payload: payment.payload,
    },
    paymentRequirements: accepted,
  }
}
