/**
 * Ships audit records to an HTTP endpoint (AUTOMATON_AUDIT_ENDPOINT, a SIEM's collector): the
 * process that delivers execution hooks POSTs each organization's records past the endpoint's
 * acknowledged sequence, in chain order, in batches, signed as execution hooks are (Standard
 * Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` over the body with
 * AUTOMATON_AUDIT_ENDPOINT_SECRET). Only a 2xx answer moves the sequence (kept in the database,
 * so a restart resends what was not acknowledged: at least once). A pass reads which organizations
 * have records past that sequence and takes the lease of those only (nothing written while nothing
 * is pending). A failure pauses that organization alone, with a growing pause; a 413 halves its
 * batch first (down to one record). A lease per organization keeps two processes from sending one
 * chain at once.
 */
import { ConfigError } from '../../core/config/parsers.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { HttpClient } from '../../core/ports/http-client.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { type HookUrlPolicy, hookUrlProblem } from '../../core/security/hook-url.ts'
import { importSigningKey, signatureHeader } from '../../core/security/webhook-signature.ts'
import { toAuditEvent } from '../../core/services/audit-log.ts'
import { type AuditRow, auditDeliveries, auditEvents } from '../../core/store/audit-events.ts'
import { createPassLoop } from './pass-loop.ts'

/** Records in one POST. */
export const AUDIT_BATCH = 100
/** A process holds an organization's delivery this long past its last step. */
const LEASE_MS = 60_000
/** The longest pause between attempts while the endpoint fails. */
const MAX_PAUSE_MS = 5 * 60_000

export interface AuditEndpointDeps {
  store: Store
  clock: Clock
  logger: Logger
  http: HttpClient
  url: string
  secret: string | null
  policy: HookUrlPolicy
  pollMs: number
  timeoutMs: number
  userAgent: string
  /** This process, as the leases name it. */
  owner: string
}

export interface AuditEndpointShipper {
  /**
   * One pass now: each organization with records the endpoint has not acknowledged (and whose
   * pause after a failure is over); answers how many records were acknowledged. An organization
   * the endpoint refuses is logged and paused on its own; the others are still sent.
   */
  shipNow(): Promise<number>
  start(): void
  stop(): Promise<void>
}

/** Where one organization's delivery stands after failures: its pause and its batch size. */
interface OrganizationState {
  failures: number
  retryAt: number
  batch: number
}

/** The endpoint did not answer 2xx. */
class EndpointRefusal extends Error {
  constructor(readonly status: number) {
    super(`the audit endpoint answered ${status}`)
  }
}

/** The body of one POST: an organization's records, oldest first. */
export function auditBatchBody(organizationId: string, records: readonly unknown[]): string {
  return JSON.stringify({ type: 'audit.records', organizationId, records })
}

/** The signing key, or a ConfigError naming what is wrong with the settings. */
async function signingKeyOf(deps: AuditEndpointDeps): Promise<CryptoKey> {
  if (!deps.secret) throw new ConfigError('AUTOMATON_AUDIT_ENDPOINT needs AUTOMATON_AUDIT_ENDPOINT_SECRET (whsec_…)')
  const problem = hookUrlProblem(deps.url, deps.policy)
  if (problem) throw new ConfigError(`AUTOMATON_AUDIT_ENDPOINT ${deps.url} ${problem}`)
  try {
    return await importSigningKey(deps.secret)
  } catch {
    throw new ConfigError('AUTOMATON_AUDIT_ENDPOINT_SECRET is not a whsec_<base64> secret')
  }
}

export async function createAuditEndpointShipper(deps: AuditEndpointDeps): Promise<AuditEndpointShipper> {
  const key = await signingKeyOf(deps)
  const { store, clock } = deps
  const states = new Map<string, OrganizationState>()

  async function post(organizationId: string, rows: AuditRow[]): Promise<void> {
    const body = auditBatchBody(organizationId, rows.map(toAuditEvent))
    const id = `audit_${organizationId}_${rows[0].seq}_${rows[rows.length - 1].seq}`
    const timestamp = Math.floor(clock.now() / 1000)
    const response = await deps.http.send({
      method: 'POST',
      url: deps.url,
      headers: {
        'content-type': 'application/json',
        'user-agent': deps.userAgent,
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await signatureHeader([key], id, timestamp, body),
      },
      body,
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: 4096,
    })
    if (response.status < 200 || response.status >= 300) throw new EndpointRefusal(response.status)
  }

  /** Posts one batch; a 413 halves the organization's batch and tries again, down to one record. */
  async function postShrinking(
    organizationId: string,
    rows: AuditRow[],
    state: OrganizationState,
  ): Promise<AuditRow[]> {
    for (;;) {
      const batch = rows.slice(0, state.batch)
      try {
        await post(organizationId, batch)
        return batch
      } catch (error) {
        if (!(error instanceof EndpointRefusal && error.status === 413 && state.batch > 1)) throw error
        state.batch = Math.ceil(state.batch / 2)
      }
    }
  }

  /** Sends one organization's records past its acknowledged sequence; answers how many. */
  async function shipOrganization(organizationId: string, state: OrganizationState): Promise<number> {
    const leaseUntil = () => clock.now() + LEASE_MS
    let seq = await store.write((tx) =>
      auditDeliveries.claim(tx, organizationId, deps.owner, clock.now(), leaseUntil()),
    )
    if (seq === null) return 0
    let shipped = 0
    for (;;) {
      const rows = await auditEvents.after(store, organizationId, seq, state.batch)
      if (rows.length === 0) return shipped
      const sent = await postShrinking(organizationId, rows, state)
      const last = Number(sent[sent.length - 1].seq)
      const kept = await store.write((tx) =>
        auditDeliveries.acknowledge(tx, organizationId, deps.owner, last, leaseUntil()),
      )
      if (!kept) return shipped
      seq = last
      shipped += sent.length
    }
  }

  /** Ships one organization, keeping its failures and pause to itself. */
  async function shipOne(organizationId: string): Promise<number> {
    const state = states.get(organizationId) ?? { failures: 0, retryAt: 0, batch: AUDIT_BATCH }
    if (clock.now() < state.retryAt) return 0
    try {
      const shipped = await shipOrganization(organizationId, state)
      if (state.batch === AUDIT_BATCH) states.delete(organizationId)
      else states.set(organizationId, { ...state, failures: 0, retryAt: 0 })
      return shipped
    } catch (error) {
      state.failures++
      state.retryAt = clock.now() + Math.min(deps.pollMs * 2 ** state.failures, MAX_PAUSE_MS)
      states.set(organizationId, state)
      deps.logger.warn('could not deliver audit records to the endpoint; trying again', {
        organizationId,
        error: String(error),
        failures: state.failures,
      })
      return 0
    }
  }

  async function pass(): Promise<number> {
    let shipped = 0
    for (const organizationId of await auditDeliveries.pending(store)) {
      if (loop.stopped) break
      shipped += await shipOne(organizationId)
    }
    return shipped
  }

  const loop = createPassLoop(pass, deps.pollMs, (error) =>
    deps.logger.warn('could not read the audit records to deliver', { error: String(error) }),
  )

  return {
    shipNow: loop.passNow,
    start: loop.start,
    async stop() {
      await loop.stop()
      const organizations = await auditEvents.organizations(store).catch(() => [])
      await store
        .write(async (tx) => {
          for (const organizationId of organizations) await auditDeliveries.release(tx, organizationId, deps.owner)
        })
        .catch(() => {})
    },
  }
}
