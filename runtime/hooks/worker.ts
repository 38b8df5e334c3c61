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
import type { RecordedEvent } from '../../core/events.ts'
import type { Bus, Subscription } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { HttpClient } from '../../core/ports/http-client.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { HOOK_DELIVERIES_DUE_SUBJECT } from '../../core/services/execution-hooks.ts'
import {
  type DeliveryRow,
  hookDeliveries,
  type Lease,
  type NewDelivery,
  newDeliveryRow,
} from '../../core/store/hook-deliveries.ts'
import { randomToken } from '../../core/ids.ts'
import type { EndpointDirectory } from './endpoints.ts'
import { type AttemptContext, attemptDelivery } from './attempt.ts'
import { APART, createCompletionWriter } from './completions.ts'
import type { Handoff } from './outbox.ts'

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

export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const id = `wkr_${randomToken(9)}`
  // Long enough for a send that runs to its timeout, plus the write of its outcome.
  const leaseMs = 2 * deps.timeoutMs + 1000
  const active = new Map<string, { controller: AbortController; done: Promise<void> }>()
  // Rows the outbox leased to this worker, by the journal id of their event: sent once it is
  // published. An entry whose event is never published (its transaction rolled back) is dropped
  // after a while; were it committed after all, its lease would simply run out.
  const handedOver = new Map<number, { rows: readonly NewDelivery[]; at: number }>()
  let handedOverRows = 0
  const subscriptions: Subscription[] = []
  let stopped = true
  let stopping = false
  let claiming = false
  let again = false
  // More due rows may be waiting than there were free slots for.
  let backlog = false
  let poll: ReturnType<typeof setInterval> | null = null
  let retryTimer: ReturnType<typeof setTimeout> | null = null
  let retryAt = Number.POSITIVE_INFINITY
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
        const free = deps.concurrency - active.size - handedOverRows
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
            wakeAt(next)
            break
          }
        }
        const rows = await deps.store.write(
          (tx) => hookDeliveries.claim(tx, deps.store.dialect, id, now, now + leaseMs, want),
          APART,
        )
        backlog = rows.length === want
        if (backlog) again = true
        for (const row of rows) start(row)
      } while (again && !stopped)
    } catch (error) {
      deps.logger.error('could not claim hook deliveries', { error: String(error) })
    } finally {
      claiming = false
    }
  }

  function start(row: DeliveryRow) {
    const controller = new AbortController()
    const lease: Lease = { id: row.id, worker: id, until: Number(row.due_at) }
    const done = attemptDelivery(context, row, lease, controller.signal)
      .then((nextRetryAt) => {
        if (nextRetryAt !== null) wakeAt(nextRetryAt)
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

  /** Wakes for a retry this worker scheduled, so short schedules do not wait for the poll. */
  function wakeAt(at: number) {
    if (stopped || at >= retryAt) return
    retryAt = at
    if (retryTimer) clearTimeout(retryTimer)
    retryTimer = setTimeout(
      () => {
        retryTimer = null
        retryAt = Number.POSITIVE_INFINITY
        wake()
      },
      Math.max(0, at - deps.clock.now()),
    )
    unref(retryTimer)
  }

  function takeHandedOver(eventId: number) {
    const entry = handedOver.get(eventId)!
    handedOver.delete(eventId)
    handedOverRows -= entry.rows.length
    for (const row of entry.rows) start(newDeliveryRow(row))
  }

  function dropStaleHandOvers() {
    const old = deps.clock.now() - leaseMs / 2
    for (const [eventId, entry] of handedOver) {
      if (entry.at >= old) continue
      handedOver.delete(eventId)
      handedOverRows -= entry.rows.length
    }
  }

  return {
    workerId: id,
    leaseMs,
    get inFlight() {
      return active.size
    },
    hasRoom(count) {
      return !stopped && active.size + handedOverRows + count <= deps.concurrency
    },
    expect(eventId, rows) {
      const previous = handedOver.get(eventId)
      if (previous) handedOverRows -= previous.rows.length
      handedOver.set(eventId, { rows, at: deps.clock.now() })
      handedOverRows += rows.length
    },
    wake,
    async start() {
      // The embedded store has one process: a lease in it belongs to a process that is gone.
      if (deps.store.dialect === 'sqlite')
        await deps.store.write((tx) => hookDeliveries.releaseAll(tx, deps.clock.now()))
      stopped = false
      subscriptions.push(
        deps.bus.subscribe<RecordedEvent>('evt.>', (m) => {
          if (!isHookEventType(m.data.type)) return
          // Rows handed over are on their way; otherwise the event may have left rows to claim.
          if (handedOver.has(m.data.id)) takeHandedOver(m.data.id)
          else if (deps.directory.mayHaveSubscribers(m.data.organizationId)) wake()
        }),
        deps.bus.subscribe(HOOK_DELIVERIES_DUE_SUBJECT, () => wake()),
      )
      poll = setInterval(() => {
        dropStaleHandOvers()
        wake()
      }, deps.pollMs)
      unref(poll)
      wake()
    },
    async stop(graceMs) {
      stopped = true
      for (const s of subscriptions.splice(0)) s.unsubscribe()
      handedOver.clear()
      handedOverRows = 0
      if (poll) clearInterval(poll)
      if (retryTimer) clearTimeout(retryTimer)
      const all = () => Promise.all([...active.values()].map((a) => a.done))
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
      clearTimeout(timer)
      stopping = true
      for (const a of active.values()) a.controller.abort(new Error('the delivery worker is stopping'))
      await all()
    },
  }
}

function unref(timer: unknown) {
  ;(timer as { unref?: () => void }).unref?.()
}
