/**
 * The cross-chain payment service's callback, POST /v1/internal/crosschain/order-completed,
 * authorized by `x-api-key` = the operator setting AUTOMATON_CROSSCHAIN_API_KEY (while it is
 * unset every request is refused). `clientReferenceId` names what the order was for: a
 * workflow (`wf_…`: a run of its live version starts from its `crosschain` trigger) or a run
 * waiting for the order (`run_…`: it resumes). The answer is `{ executionId, runId }` without
 * the envelope: the stored event's id and the run started or resumed ('' when none), plus
 * `action` and `reason` as in the Webhook result. A repeated callback (same order, event and
 * status) is a duplicate and answers the first one's ids.
 */
import { defineWebhook, type WebhookVerdict } from '../../core/plugin/sdk.ts'

const REFERENCE = /^(wf|run)_[A-Za-z0-9]{1,60}$/
const TEXT_FIELDS = ['orderId', 'clientReferenceId', 'event', 'status'] as const
const PAYMENT_TEXT = ['dstAmount', 'dstTokenAddress', 'dstTokenSymbol', 'recipientAddress'] as const
const PAYMENT_INTEGERS = ['dstChain', 'dstTokenDecimals'] as const

export interface OrderCompleted {
  orderId: string
  clientReferenceId: string
  event: string
  status: string
  txHash: string
  callbackMetadata?: Record<string, unknown>
  payment: Record<string, unknown>
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

/** Every problem with the body, as `/path: message`. */
export function problemsOf(body: unknown): string[] {
  if (!isObject(body)) return ['/: the body must be a JSON object']
  const problems: string[] = []
  for (const f of TEXT_FIELDS)
    if (typeof body[f] !== 'string' || !body[f] || (body[f] as string).length > 255)
      problems.push(`/${f}: must be a non-empty string`)
  if (typeof body.txHash !== 'string' || (body.txHash as string).length > 255)
    problems.push('/txHash: must be a string')
  if (typeof body.clientReferenceId === 'string' && body.clientReferenceId && !REFERENCE.test(body.clientReferenceId)) {
    problems.push('/clientReferenceId: must name a workflow (wf_…) or a waiting run (run_…)')
  }
  if (body.callbackMetadata !== undefined && !isObject(body.callbackMetadata))
    problems.push('/callbackMetadata: must be an object')
  if (!isObject(body.payment)) problems.push('/payment: must be an object')
  else {
    for (const f of PAYMENT_TEXT)
      if (typeof body.payment[f] !== 'string') problems.push(`/payment/${f}: must be a string`)
    for (const f of PAYMENT_INTEGERS)
      if (!Number.isInteger(body.payment[f]) || (body.payment[f] as number) < 0)
        problems.push(`/payment/${f}: must be a non-negative integer`)
  }
  return problems
}

export const orderCompleted = defineWebhook({
  name: 'order-completed',
  description:
    'The cross-chain payment service reports a completed order; clientReferenceId names the workflow to start or the run to resume',
  path: '/v1/internal/crosschain/order-completed',
  auth: { kind: 'setting', setting: 'AUTOMATON_CROSSCHAIN_API_KEY' },
  verify(request, ctx): WebhookVerdict {
    if (!ctx.crypto.safeEqual(ctx.secret ?? '', request.headers['x-api-key'] ?? ''))
      return { ok: false, status: 401, reason: 'missing or wrong x-api-key' }
    const problems = problemsOf(request.body)
    return problems.length > 0
      ? { ok: false, status: 400, reason: `invalid body: ${problems.join('; ')}`, problems }
      : { ok: true }
  },
  receive(request) {
    const order = request.body as OrderCompleted
    const ref = order.clientReferenceId
    const target = ref.startsWith('run_') ? { runId: ref } : { workflowId: ref }
    return {
      events: [
        { triggerType: 'crosschain', eventId: `${order.orderId}:${order.event}:${order.status}`, body: order, target },
      ],
    }
  },
  answer: (result) => ({
    status: 200,
    body: {
      executionId: result.eventId,
      runId: result.runIds[0] ?? '',
      action: result.action,
      ...(result.reason ? { reason: result.reason } : {}),
    },
  }),
})
