/**
 * Execution-hook delivery, assembled: the endpoint directory (caches), the outbox listener the
 * event recorder calls inside each journal transaction, and the delivery worker. The composition
 * root registers `outbox` with the recorder and owns the lifetime (`start`/`stop`).
 *
 * Every process that records run events has the outbox (an API process records `run.started`);
 * only processes that `send` run the worker, and only they take rows straight from the outbox.
 */
import type { Metrics } from '../../core/ports/metrics.ts'
import type { Bus } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { HttpClient } from '../../core/ports/http-client.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { SecretBox } from '../../core/ports/secret-box.ts'
import type { Store } from '../../core/ports/store.ts'
import type { HookUrlPolicy } from '../../core/security/hook-url.ts'
import { createEndpointDirectory, type EndpointDirectory } from './endpoints.ts'
import type { TransactionalListener } from '../event-recorder.ts'
import { createOutbox } from './outbox.ts'
import { createDeliveryWorker, type DeliveryWorker } from './worker.ts'
import { HOOK_ENDPOINT_CHANGED_SUBJECT } from '../../core/services/execution-hooks.ts'

export interface HookDeliveryDeps {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  logger: Logger
  http: HttpClient
  secretBox: SecretBox
  policy: HookUrlPolicy
  schedule: readonly number[]
  concurrency: number
  timeoutMs: number
  pollMs: number
  userAgent: string
  /** Whether this process sends deliveries (runs the worker). */
  sends: boolean
  /** Counts delivery attempts by outcome. */
  metrics?: Metrics
}

/** Execution-hook delivery in one process: what the composition root wires and starts. */
export interface HookDelivery {
  /** The cached hook endpoints of each organization. */
  readonly directory: EndpointDirectory
  /** The event recorder's transactional listener that writes (and may hand over) delivery rows. */
  readonly outbox: TransactionalListener
  /** The delivery worker, in a process that sends; null elsewhere. */
  readonly worker: DeliveryWorker | null
  /** Listens for endpoint changes and starts the worker. */
  start(): Promise<void>
  /** Stops listening and stops the worker, giving in-flight sends `graceMs`. */
  stop(graceMs: number): Promise<void>
}

export function createHookDelivery(deps: HookDeliveryDeps): HookDelivery {
  const directory = createEndpointDirectory({
    store: deps.store,
    clock: deps.clock,
    secretBox: deps.secretBox,
    policy: deps.policy,
  })
  const worker = deps.sends ? createDeliveryWorker({ ...deps, directory }) : null
  const outbox = createOutbox({ directory, ids: deps.ids, clock: deps.clock, handoff: worker ?? undefined })
  let changes: { unsubscribe(): void } | null = null
  return {
    directory,
    outbox,
    worker,
    async start() {
      // Every process caches endpoints for its outbox: each hears when one changes.
      changes = deps.bus.subscribe<{ organizationId?: string; endpointId?: string }>(
        HOOK_ENDPOINT_CHANGED_SUBJECT,
        (m) => directory.invalidate(m.data ?? {}),
      )
      await worker?.start()
    },
    async stop(graceMs: number) {
      changes?.unsubscribe()
      await worker?.stop(graceMs)
    },
  }
}
