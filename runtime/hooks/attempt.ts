/**
 * One attempt of one leased delivery: sign, send, judge the answer, and write the outcome if the
 * lease is still ours (through the worker's batched writes; with the endpoint's disabling in one
 * transaction on 410). A refusal
 * of the SSRF guard, a timeout, a network error, a redirect and any status outside 2xx are all
 * failed attempts with an `errorMessage`; only a stopping worker's aborted send is not an
 * attempt (its lease is handed back).
 */
import { OutboundTimeoutError, type OutboundResponse, TargetRefusedError } from '../../core/ports/http-client.ts'
import { HOOK_ENDPOINT_CHANGED_SUBJECT } from '../../core/services/execution-hooks.ts'
import { signatureHeader } from '../../core/security/webhook-signature.ts'
import {
  type Completion,
  type DeliveryRow,
  hookDeliveries,
  type Lease,
  MAX_ATTEMPTS_KEPT,
  type StoredAttempt,
} from '../../core/store/hook-deliveries.ts'
import { hookEndpoints } from '../../core/store/hook-endpoints.ts'
import { parseJson } from '../../core/json.ts'
import type { SendingEndpoint } from './endpoints.ts'
import type { DeliveryWorkerDeps } from './worker.ts'
import { nextRetryDelay, parseRetryAfter } from './retry-schedule.ts'
import { APART } from './completions.ts'

/** What an attempt needs from its worker. */
export interface AttemptContext extends DeliveryWorkerDeps {
  /** Writes an outcome with others of the same moment; false when the lease was lost. */
  complete(completion: Completion): Promise<boolean>
  /** The worker is stopping: an aborted send gives its lease back rather than counting as an attempt. */
  stopping(): boolean
}

export const RESPONSE_BODY_BYTES = 4096

interface Exchange {
  response: OutboundResponse | null
  error: string | null
  durationMs: number
}

/** Resolves to the time of the next retry it scheduled, or null. */
export async function attemptDelivery(
  deps: AttemptContext,
  row: DeliveryRow,
  lease: Lease,
  signal: AbortSignal,
): Promise<number | null> {
  let endpoint: SendingEndpoint | null
  try {
    endpoint = await deps.directory.forSending(row.endpoint_id)
  } catch (error) {
    // Its secret cannot be opened (another master key?): a failed attempt, so the retries run out.
    const at = deps.clock.now()
    return record(deps, row, lease, at, {
      response: null,
      error: `not sent: the endpoint could not be read: ${describe(error)}`,
      durationMs: 0,
    })
  }
  if (!endpoint || endpoint.status !== 'enabled') {
    const reason = endpoint ? 'not sent: the endpoint is disabled' : 'not sent: the endpoint no longer exists'
    await deps.store.write((tx) => hookDeliveries.abandon(tx, lease, reason, deps.clock.now()), APART)
    return null
  }
  const at = deps.clock.now()
  const exchange = await send(deps, row, endpoint, at, signal)
  if (exchange === null || (signal.aborted && deps.stopping())) {
    await deps.store.write(
      (tx) => hookDeliveries.release(tx, lease.id, lease.worker, lease.until, deps.clock.now()),
      APART,
    )
    return null
  }
  return record(deps, row, lease, at, exchange)
}

async function send(
  deps: DeliveryWorkerDeps,
  row: DeliveryRow,
  endpoint: SendingEndpoint,
  at: number,
  signal: AbortSignal,
): Promise<Exchange | null> {
  if (endpoint.urlProblem)
    return { response: null, error: `not sent: the endpoint URL ${endpoint.urlProblem}`, durationMs: 0 }
  const timestamp = Math.floor(at / 1000)
  const headers = {
    'content-type': 'application/json',
    'user-agent': deps.userAgent,
    'webhook-id': row.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await signatureHeader(endpoint.keysAt(at), row.event_id, timestamp, row.payload),
  }
  try {
    const response = await deps.http.send({
      method: 'POST',
      url: endpoint.url,
      headers,
      body: row.payload,
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: RESPONSE_BODY_BYTES,
      signal,
    })
    return { response, error: judge(response), durationMs: response.durationMs }
  } catch (error) {
    if (signal.aborted && !(error instanceof OutboundTimeoutError)) return null
    return { response: null, error: describe(error), durationMs: Math.max(0, deps.clock.now() - at) }
  }
}

/**
 * A receiver's answer as text any store keeps: a NUL character (which Postgres text cannot hold,
 * so the outcome could never be written) becomes U+FFFD, like the bytes that were not UTF-8.
 */
function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text
}

/** Null for a delivered answer, otherwise what went wrong. */
function judge(response: OutboundResponse): string | null {
  const { status } = response
  if (status >= 200 && status < 300) return null
  if (status === 410) return 'answered 410 Gone: the endpoint was disabled'
  if (status >= 300 && status < 400) {
    const location = response.headers.location
    return `answered ${status}; redirects are not followed${location ? ` (Location: ${location.slice(0, 500)})` : ''}`
  }
  return `answered ${status}`
}

function describe(error: unknown): string {
  if (error instanceof TargetRefusedError) return `refused by the SSRF guard: ${error.message}`
  if (error instanceof OutboundTimeoutError) return `timed out: ${error.message}`
  const e = error as { code?: unknown; message?: unknown } | null
  const message = typeof e?.message === 'string' ? e.message : String(error)
  return typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message
}

async function record(
  deps: AttemptContext,
  row: DeliveryRow,
  lease: Lease,
  at: number,
  exchange: Exchange,
): Promise<number | null> {
  const { response, error } = exchange
  const now = deps.clock.now()
  const attemptCount = Number(row.attempt_count) + 1
  const retryCount = Number(row.attempt_count) > 0 ? Number(row.retry_count) + 1 : Number(row.retry_count)
  const gone = response?.status === 410
  const delay =
    error === null || gone
      ? null
      : nextRetryDelay(
          deps.schedule,
          retryCount,
          Number(row.max_retries),
          parseRetryAfter(response?.headers['retry-after'], now),
        )
  const nextRetryAt = delay === null ? null : now + delay
  const attempts = [
    ...parseJson<StoredAttempt[]>(row.attempts, []),
    { at, status: response?.status ?? null, ms: exchange.durationMs, error, by: lease.worker },
  ]
  const completion: Completion = {
    lease,
    outcome: {
      status: error === null ? 'success' : nextRetryAt === null ? 'failure' : 'retrying',
      attemptCount,
      retryCount,
      nextRetryAt,
      responseStatus: response?.status ?? null,
      responseBody: response ? storableText(response.body) : null,
      durationMs: exchange.durationMs,
      errorMessage: error,
      attempts: JSON.stringify(attempts.slice(-MAX_ATTEMPTS_KEPT)),
      at: now,
      deliveredAt: error === null ? now : null,
    },
  }
  const written = gone
    ? await deps.store.write(async (tx) => {
        const ok = (await hookDeliveries.complete(tx, [completion])).size === 1
        if (ok)
          await hookEndpoints.setStatus(
            tx,
            row.organization_id,
            row.endpoint_id,
            'disabled',
            `the endpoint answered 410 Gone to delivery ${row.id}`,
            now,
            'system',
          )
        return ok
      }) // With the journal's writes: it changes the endpoint too, which the API also writes.
    : await deps.complete(completion)
  if (!written)
    deps.logger.warn('a hook delivery lease ran out before its outcome was written', {
      deliveryId: row.id,
      worker: lease.worker,
    })
  else if (deps.metrics) {
    deps.metrics.hookDeliveries.inc({ outcome: completion.outcome.status })
    deps.metrics.hookAttempt.observe(exchange.durationMs / 1000)
  }
  if (written && gone) {
    deps.directory.invalidate({ organizationId: row.organization_id, endpointId: row.endpoint_id })
    deps.bus.publish(HOOK_ENDPOINT_CHANGED_SUBJECT, {
      organizationId: row.organization_id,
      endpointId: row.endpoint_id,
    })
  }
  return written ? nextRetryAt : null
}
