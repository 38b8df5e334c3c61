/**
 * The event-source webhook, POST /v1/orgs/{orgId}/integrations/eventsource?secret=<the
 * organization's webhook secret>. An external service (a chain indexer, a price feed, a mail
 * poller, your own code) posts one event per request:
 *
 *   { "id": "<its event id>", "type": "<generic trigger type>", "data": { …the event body… },
 *     "runId"?: "run_…", "workflowId"?: "wf_…" }
 *
 * `data` is what runs read as `{{$trigger.body…}}` and must match the trigger type's result
 * schema (see GET /v1/triggers/{type}). Without runId or workflowId the event goes to the live
 * workflows whose trigger of that type matches it and to the runs waiting for that type; with
 * runId it resumes only that run's waiting node, with workflowId it starts only that workflow.
 * An `approval` event must name its run: a decision is for one approval, never for all.
 */
import { defineWebhook, type WebhookVerdict } from '../../core/plugin/sdk.ts'

/** The trigger types an event source may deliver. */
export const EVENT_SOURCE_TYPES: readonly string[] = [
  'evm-log',
  'erc20-receive',
  'erc20-send',
  'eth-receive',
  'eth-send',
  'solana-transaction',
  'token-price-cexes',
  'exchange-listing',
  'situation-fired',
  'email-new-email-received',
  'email-new-email-matching-criteria',
  'approval',
]

interface Envelope {
  id: string
  type: string
  data: Record<string, unknown>
  runId?: string
  workflowId?: string
}

const ID = /^[A-Za-z0-9_-]{1,64}$/
const bad = (reason: string): WebhookVerdict => ({ ok: false, status: 400, reason })

/** What is wrong with the envelope, or null. */
function problemOf(body: unknown): string | null {
  const e = body as Partial<Envelope> | undefined
  if (!e || typeof e !== 'object' || Array.isArray(e)) return 'the body must be a JSON object { id, type, data }'
  if (typeof e.id !== 'string' || e.id.length < 1 || e.id.length > 255)
    return "id must be a string of 1 to 255 characters (the event's id at its source)"
  if (typeof e.type !== 'string' || !EVENT_SOURCE_TYPES.includes(e.type))
    return `type must be one of ${EVENT_SOURCE_TYPES.join(', ')}`
  if (!e.data || typeof e.data !== 'object' || Array.isArray(e.data))
    return "data must be an object (the trigger event's body)"
  if (e.runId !== undefined && (typeof e.runId !== 'string' || !ID.test(e.runId))) return 'runId must be a run id'
  if (e.workflowId !== undefined && (typeof e.workflowId !== 'string' || !ID.test(e.workflowId)))
    return 'workflowId must be a workflow id'
  if (e.runId && e.workflowId) return 'name a runId or a workflowId, not both'
  if (e.type === 'approval' && !e.runId) return 'an approval event must name the run it decides (runId)'
  return null
}

export const events = defineWebhook({
  name: 'events',
  description:
    "Events of an external event source (on-chain, market, e-mail), authorized by the organization's webhook secret",
  path: '/v1/orgs/:orgId/integrations/eventsource',
  auth: { kind: 'organization' },
  verify(request, ctx) {
    const sent = request.query.secret
    if (!sent) return { ok: false, status: 401, reason: 'the secret query parameter is required' }
    if (!ctx.crypto.safeEqual(ctx.secret ?? '', sent))
      return { ok: false, status: 401, reason: "the secret is not the organization's webhook secret" }
    const problem = problemOf(request.body)
    return problem ? bad(problem) : { ok: true }
  },
  receive(request) {
    const e = request.body as Envelope
    const target = e.runId ? { runId: e.runId } : e.workflowId ? { workflowId: e.workflowId } : undefined
    return { events: [{ triggerType: e.type, eventId: e.id, body: e.data, ...(target ? { target } : {}) }] }
  },
})
