/**
 * x402 without a key: a discoverable paid workflow runs for payment alone, and the discovery
 * list in the Bazaar format. A 402 answers the v1 body with the v2 `PAYMENT-REQUIRED` header.
 */
import { Elysia } from 'elysia'
import type { X402Service } from '../../services/x402.ts'
import { badRequest } from '../../errors.ts'
import { doc } from '../docs.ts'
import { raw } from '../responses.ts'
import { clientUrlOf } from '../request-state.ts'
import { intParam, t } from '../schemas.ts'

const EXPOSE = 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE'

/** The trigger body of a paid call: a JSON object, or none. */
export function paidBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === '') return {}
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('the body must be a JSON object', [{ path: '', message: 'expected an object' }])
  return body as Record<string, unknown>
}

export function x402Routes(x402: X402Service) {
  return new Elysia({ name: 'routes.x402' })
    .post(
      '/v1/x402/workflows/:workflowId',
      async ({ params, body, request, set }) => {
        try {
          const paid = await x402.payDiscoverable(params.workflowId, {
            url: clientUrlOf(request),
            headers: request.headers,
            body: paidBody(body),
          })
          Object.assign(set.headers, paid.headers, { 'access-control-expose-headers': EXPOSE })
          return { ...paid.result, payment: paid.payment }
        } catch (error) {
          const answer = x402.answer402(error)
          if (answer) return answer
          throw error
        }
      },
      {
        params: t.Object({ workflowId: t.String({ minLength: 1, maxLength: 64 }) }),
        detail: doc({
          summary: 'Run a discoverable paid workflow for payment alone (x402)',
          description:
            'Without a payment: 402 with the x402 v1 body and the v2 PAYMENT-REQUIRED header. With X-PAYMENT (v1) or PAYMENT-SIGNATURE (v2): verified, settled on chain, then the run starts; the answer carries X-PAYMENT-RESPONSE or PAYMENT-RESPONSE. The same payment again answers the same run.',
          tags: ['x402'],
          errors: [400, 402, 404, 409, 503],
        }),
      },
    )
    .get(
      '/v1/x402/discovery/resources',
      async ({ query, request }) => {
        const base = new URL(clientUrlOf(request)).origin
        return raw(
          await x402.discovery({ type: query.type, limit: query.limit ?? 20, offset: query.offset ?? 0 }, base),
        )
      },
      {
        query: t.Object({
          type: t.Optional(t.String({ maxLength: 20 })),
          limit: t.Optional(intParam('limit', { minimum: 1, maximum: 100, default: 20 })),
          offset: t.Optional(intParam('offset', { minimum: 0, default: 0 })),
        }),
        detail: doc({
          summary: 'Paid workflows of this installation, in the x402 Bazaar format',
          tags: ['x402'],
          raw: true,
        }),
      },
    )
}
