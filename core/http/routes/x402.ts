/**
 * x402 without a key: a discoverable paid workflow runs for payment alone, and the discovery
 * list in the Bazaar format. A 402 answers the v1 body with the v2 `PAYMENT-REQUIRED` header.
 */
import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { WaitedRun, WebhookResult } from '../../domain/run.ts'
import type { RunOutputs } from '../../services/run-outputs.ts'
import type { X402Service } from '../../services/x402.ts'
import { badRequest } from '../../errors.ts'
import { doc } from '../docs.ts'
import { answerWaiting } from '../prefer-wait.ts'
import { raw } from '../responses.ts'
import { clientUrlOf } from '../request-state.ts'
import { intParam, t } from '../schemas.ts'

const EXPOSE = 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE'

/** What a settled payment answers beside the Webhook result. */
export const PaymentAnswer = T.Object({
  transaction: T.String(),
  network: T.String(),
  payer: T.String(),
  amount: T.String(),
})

/** The trigger body of a paid call: a JSON object, or none. */
export function paidBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === '') return {}
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('the body must be a JSON object', [{ path: '', message: 'expected an object' }])
  return body as Record<string, unknown>
}

export function x402Routes(x402: X402Service, outputs?: RunOutputs) {
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
          // The buyer receives what it paid for: the answer waits for the run's output.
          return answerWaiting({ ...paid.result, payment: paid.payment }, paid.result.runIds[0], {
            outputs,
            headers: request.headers,
            set,
            defaultMs: paid.waitMs,
          })
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
            'Without a payment: 402 with the x402 v1 body and the v2 PAYMENT-REQUIRED header. With X-PAYMENT (v1) or PAYMENT-SIGNATURE (v2): verified, settled on chain, then the run starts; the answer carries X-PAYMENT-RESPONSE or PAYMENT-RESPONSE. The same payment again answers the same run. The answer waits for the run (x402Config.responseWaitMs, default 30 s; or `Prefer: wait=<seconds>`) and carries `run: { id, status, output }` when it ended in time.',
          tags: ['x402'],
          response: T.Composite([WebhookResult, T.Object({ payment: PaymentAnswer, run: T.Optional(WaitedRun) })]),
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
