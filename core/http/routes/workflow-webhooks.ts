/**
 * The two ways to start a workflow without an API key: its webhook (the secret in the path) and,
 * for public_execute workflows, the public run endpoint (limited per caller address).
 * Integration webhooks, which start the workflows whose triggers match a platform's event, are
 * in integrations.ts.
 */
import type { X402Service } from '../../services/x402.ts'
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { RunBody, WaitedRun, WebhookResult } from '../../domain/run.ts'
import { badRequest, conflict, unavailable } from '../../errors.ts'
import type { RunOutputs } from '../../services/run-outputs.ts'
import type { RunService } from '../../services/runs.ts'
import { doc } from '../docs.ts'
import { answerWaiting } from '../prefer-wait.ts'
import { clientAddressOf, clientUrlOf } from '../request-state.ts'
import { t } from '../schemas.ts'

/** A webhook's body is a JSON object (or a form, read as one); none is {}. */
function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === '') return {}
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the webhook body must be a JSON object', [
      {
        path: '',
        message: `expected an object, got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`,
      },
    ])
  }
  return body as Record<string, unknown>
}

const PUBLIC_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '600',
}

export function workflowWebhookRoutes(runs: RunService, x402?: X402Service, outputs?: RunOutputs) {
  return (
    new Elysia({ name: 'routes.webhooks' })
      // A widget app runs in a sandbox (an origin of its own): the public run answers it by CORS,
      // without credentials.
      .options('/v1/public/workflows/:id/run', () => new Response(null, { status: 204, headers: PUBLIC_CORS }), {
        detail: doc({ summary: 'CORS preflight of the public run', tags: ['runs'], hide: true }),
      })
      .post(
        '/v1/public/workflows/:id/run',
        async ({ params, body, request, set }) => {
          Object.assign(set.headers, PUBLIC_CORS)
          const started = await runs.startPublic(
            params.id,
            body ?? {},
            request.headers,
            clientAddressOf(request) ?? 'unknown',
          )
          return answerWaiting(started, started.runId, { outputs, headers: request.headers, set })
        },
        {
          params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
          body: t.Optional(RunBody),
          detail: doc({
            summary: 'Run a public_execute workflow without a key',
            description:
              'Only live versions whose visibility is public_execute. Each caller address is limited by publicRunCooldownSeconds and publicRunDailyLimit (429 with Retry-After).',
            tags: ['runs'],
            response: T.Object({ runId: T.String(), run: T.Optional(WaitedRun) }),
            errors: [404, 409, 429],
          }),
        },
      )
      .post(
        '/v1/webhooks/:workflowSecret',
        async ({ params, body, request, set }) => {
          const started = await runs.webhook(
            params.workflowSecret,
            objectBody(body),
            request.headers,
            request.headers.get('idempotency-key'),
          )
          const waiting = { outputs, headers: request.headers, set }
          if (started) return answerWaiting(started, started.runIds[0], waiting)
          // A paid workflow (x402Config, not discoverable) needs its secret and a payment.
          if (!x402) throw unavailable('this workflow is paid (x402) and this server takes no payments')
          try {
            const paid = await x402.payWebhook(params.workflowSecret, {
              url: clientUrlOf(request),
              headers: request.headers,
              body: objectBody(body),
            })
            if (paid) {
              Object.assign(set.headers, paid.headers, {
                'access-control-expose-headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE',
              })
              // The buyer receives what it paid for: the answer waits for the run's output.
              return answerWaiting({ ...paid.result, payment: paid.payment }, paid.result.runIds[0], {
                ...waiting,
                defaultMs: paid.waitMs,
              })
            }
          } catch (error) {
            const answer = x402.answer402(error)
            if (answer) return answer
            throw error
          }
          // The payment terms went away meanwhile (paused, unpublished, changed): as any webhook.
          const again = await runs.webhook(
            params.workflowSecret,
            objectBody(body),
            request.headers,
            request.headers.get('idempotency-key'),
          )
          if (!again)
            throw conflict("the workflow's payment terms changed while this request was handled; send it again")
          return answerWaiting(again, again.runIds[0], waiting)
        },
        {
          params: t.Object({ workflowSecret: t.String({ minLength: 1, maxLength: 200 }) }),
          detail: doc({
            summary: 'Start a workflow from an external system',
            description:
              'No Authorization header: the secret in the path identifies and authorizes the workflow. The body is read as {{$trigger.body.<field>}}. An Idempotency-Key header deduplicates. With `Prefer: wait=<seconds>` (at most 60) the answer waits for the run and adds `run: { id, status, output }` when it ended in time.',
            tags: ['webhooks'],
            response: WebhookResult,
            errors: [404, 413],
          }),
        },
      )
  )
}
