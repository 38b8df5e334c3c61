/**
 * An external x402 facilitator (AUTOMATON_X402_FACILITATOR_URL): verifies and settles payments
 * for this installation over the reference facilitator's HTTP interface. Without one, the
 * built-in relayer settles (services/x402.ts).
 */
export interface FacilitatorRequest {
  x402Version: 1 | 2
  /** The payment as the payer sent it (decoded from X-PAYMENT or PAYMENT-SIGNATURE). */
  paymentPayload: Record<string, unknown>
  /** What the payment pays for, in the payment's version (v1 `accepts[0]`, or v2 `accepted`). */
  paymentRequirements: Record<string, unknown>
}

export interface Facilitator {
  readonly url: string
  /** `POST /verify`: whether the facilitator takes the payment, and why not. */
  verify(request: FacilitatorRequest): Promise<{ isValid: boolean; invalidReason?: string }>
  /**
   * `POST /settle`: the transaction, or the reason it failed. A timeout or an unreachable
   * facilitator throws: the outcome is then unknown, and the chain tells it later.
   */
  settle(
    request: FacilitatorRequest,
  ): Promise<{ success: true; transaction: string } | { success: false; errorReason: string }>
}
