/**
 * The delivery worker: leases due deliveries from the outbox (one conditional UPDATE, so two
 * workers never hold the same row; a dead worker's leases simply run out), sends each as a
 * signed POST through the SSRF-guarded client with at most `concurrency` in flight, and writes
 * the outcome: success on 2xx; on anything else a retry on the schedule (or later, when the
 * receiver sent Retry-After) until `maxRetries`; 410 Gone disables the endpoint.
 *
 * It looks for work when an event that may have deliveries is published, when the service says
 * deliveries became due, at the time of the next retry it scheduled, and every `pollMs` (retries
 * scheduled by other processes, leases left by dead ones). Attempts are at-least-once: a
 * receiver may see an event twice, always with the same `webhook-id`.
 */
import type { Metrics } from '../../core/ports/metrics.ts'
import { isHookEventType } from '../../core/domain/execution-hook.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { Bus, Subscription } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { HttpClient } from '../../core/ports/http-client.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { HOOK_DELIVERIES_DUE_SUBJECT } from '../../core/services/execution-hooks.ts'
import { type DeliveryRow, hookDeliveries, type Lease, newDeliveryRow } from '../../core/store/hook-deliveries.ts'
import { randomToken } from '../../core/ids.ts'
import type { EndpointDirectory } from './endpoints.ts'
import { type AttemptContext, attemptDelivery } from './attempt.ts'
import { APART, createCompletionWriter } from './completions.ts'
import type { Handoff } from './outbox.ts'
import { createHandOvers, createRetryAlarm, unref } from './worker-timing.ts'

export interface DeliveryWorkerDeps {
  readonly store: Store
  readonly bus: Bus
  readonly clock: Clock
  readonly logger: Logger
  readonly http: HttpClient
  readonly directory: EndpointDirectory
  /** Delays before each retry, in milliseconds. */
  readonly schedule: readonly number[]
  readonly concurrency: number
  readonly timeoutMs: number
  readonly pollMs: number
  readonly userAgent: string
  /** Counts attempts by outcome and times them. */
  readonly metrics?: Metrics
}

export interface DeliveryWorker extends Handoff {
  start(): Promise<void>
  /** Looks for due deliveries now. */
  wake(): void
  /** Stops taking work; gives in-flight sends `graceMs`, then aborts them and hands their leases back. */
  stop(graceMs: number): Promise<void>
  readonly inFlight: number
}

const CLAIM_BATCH = 500

/** A send in flight. */
interface Send {
  controller: AbortController
  done: Promise<void>
}

export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const id = `wkr_${randomToken(9)}`
  // Long enough for a send that runs to its timeout, plus the write of its outcome.
  const leaseMs = 2 * deps.timeoutMs + 1000
  const active = new Map<string, Send>()
  const handedOver = createHandOvers(deps.clock, leaseMs / 2)
  const subscriptions: Subscription[] = []
  let stopped = true
  let stopping = false
  let claiming = false
  let again = false
  // More due rows may be waiting than there were free slots for.
  let backlog = false
  let poll: ReturnType<typeof setInterval> | null = null
  const retry = createRetryAlarm({ clock: deps.clock, wake, stopped: () => stopped })
  const context: AttemptContext = {
    ...deps,
    complete: createCompletionWriter(deps.store).complete,
    stopping: () => stopping,
  }

  function wake() {
    if (stopped) return
    if (claiming) {
      again = true
      return
    }
    void claimLoop()
  }

  async function claimLoop() {
    claiming = true
    try {
      do {
        again = false
        const free = deps.concurrency - active.size - handedOver.rows
        if (free <= 0) {
          backlog = true
          break
        }
        const want = Math.min(free, CLAIM_BATCH)
        const now = deps.clock.now()
        if (!backlog) {
          // Nothing known to be waiting: look (a read) before taking the write lock to claim.
          const next = await hookDeliveries.nextDue(deps.store)
          if (next === null) break
          if (next > now) {
            retry.at(next)
            break
          }
        }
        const rows = await deps.store.write(
          (tx) => hookDeliveries.claim(tx, deps.store.dialect, id, now, now + leaseMs, want),
          APART,
        )
        backlog = rows.length === want
        if (backlog) again = true
        for (const row of rows) send(row)
      } while (again && !stopped)
    } catch (error) {
      deps.logger.error('could not claim hook deliveries', { error: String(error) })
    } finally {
      claiming = false
    }
  }

  function send(row: DeliveryRow) {
    const controller = new AbortController()
    const lease: Lease = { id: row.id, worker: id, until: Number(row.due_at) }
    const done = attemptDelivery(context, row, lease, controller.signal)
      .then((nextRetryAt) => {
        if (nextRetryAt !== null) retry.at(nextRetryAt)
      })
      .catch((error) =>
        deps.logger.error('hook delivery failed unexpectedly', { deliveryId: row.id, error: String(error) }),
      )
      .finally(() => {
        active.delete(row.id)
        if (backlog) wake()
      })
    active.set(row.id, { controller, done })
  }

  function onEvent(e: RecordedEvent) {
    if (!isHookEventType(e.type)) return
    // Rows handed over are on their way; otherwise the event may have left rows to claim.
    if (handedOver.has(e.id)) for (const row of handedOver.take(e.id)) send(newDeliveryRow(row))
    else if (deps.directory.mayHaveSubscribers(e.organizationId)) wake()
  }

  return {
    workerId: id,
    leaseMs,
    get inFlight() {
      return active.size
    },
    hasRoom(count) {
      return !stopped && active.size + handedOver.rows + count <= deps.concurrency
    },
    expect: handedOver.expect,
    wake,
    async start() {
      // The embedded store has one process: a lease in it belongs to a process that is gone.
      if (deps.store.dialect === 'sqlite')
        await deps.store.write((tx) => hookDeliveries.releaseAll(tx, deps.clock.now()))
      stopped = false
      subscriptions.push(
        deps.bus.subscribe<RecordedEvent>('evt.>', (m) => onEvent(m.data)),
        deps.bus.subscribe(HOOK_DELIVERIES_DUE_SUBJECT, () => wake()),
      )
      poll = setInterval(() => {
        handedOver.dropStale()
        wake()
      }, deps.pollMs)
      unref(poll)
      wake()
    },
    async stop(graceMs) {
      stopped = true
      for (const s of subscriptions.splice(0)) s.unsubscribe()
      handedOver.clear()
      if (poll) clearInterval(poll)
      retry.clear()
      await drain(active, graceMs, () => {
        stopping = true
      })
    },
  }
}

/** Gives the sends in flight `graceMs`, then (once `stopping` is told) aborts them; resolves when all ended. */
async function drain(active: ReadonlyMap<string, Send>, graceMs: number, stopping: () => void): Promise<void> {
  const all = () => Promise.all([...active.values()].map((a) => a.done))
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
  clearTimeout(timer)
  stopping()
  for (const a of active.values()) a.controller.abort(new Error('the delivery worker is stopping'))
  await all()
}
