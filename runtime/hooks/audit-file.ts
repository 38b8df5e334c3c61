/**
 * Ships audit records to the JSON-lines file (AUTOMATON_AUDIT_FILE): the process that delivers
 * execution hooks polls each organization's chain past the file's cursor and appends what it
 * finds, in chain order. Sequences are taken under the chain's lock, so they commit in order and
 * a cursor per organization misses none.
 */
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { toAuditEvent } from '../../core/services/audit-log.ts'
import { auditEvents } from '../../core/store/audit-events.ts'
import { createPassLoop } from './pass-loop.ts'

export interface AuditFileSink {
  position(organizationId: string): number
  append(lines: readonly { organizationId: string; seq: number; text: string }[]): void
}

export interface AuditShipper {
  /** One pass now: every record not in the file yet. */
  shipNow(): Promise<number>
  start(): void
  stop(): Promise<void>
}

export function createAuditShipper(deps: {
  store: Store
  sink: AuditFileSink
  logger: Logger
  pollMs: number
}): AuditShipper {
  async function pass(): Promise<number> {
    let shipped = 0
    for (const org of await auditEvents.organizations(deps.store)) {
      for (;;) {
        const rows = await auditEvents.after(deps.store, org, deps.sink.position(org), 500)
        deps.sink.append(
          rows.map((r) => ({ organizationId: org, seq: Number(r.seq), text: JSON.stringify(toAuditEvent(r)) })),
        )
        shipped += rows.length
        if (rows.length < 500) break
      }
    }
    return shipped
  }

  const loop = createPassLoop(pass, deps.pollMs, (error) =>
    deps.logger.warn('could not ship audit records; the next pass tries again', { error: String(error) }),
  )
  return { shipNow: loop.passNow, start: loop.start, stop: loop.stop }
}
