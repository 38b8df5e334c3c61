/**
 * Execution-hook delivery, assembled: the endpoint directory (caches), the outbox listener the
 * event recorder calls inside each journal transaction, and the delivery worker. The composition
 * root registers `outbox` with the recorder and owns the worker's lifetime.
 */
import type { Bus } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { HttpClient } from '../../core/ports/http-client.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { SecretBox } from '../../core/ports/secret-box.ts'
import type { Store } from '../../core/ports/store.ts'
import type { HookUrlPolicy } from '../../core/security/hook-url.ts'
import { createEndpointDirectory } from './endpoints.ts'
import { createOutbox } from './outbox.ts'
import { createDeliveryWorker } from './worker.ts'

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
}

export function createHookDelivery(deps: HookDeliveryDeps) {
  const directory = createEndpointDirectory({ store: deps.store, clock: deps.clock, secretBox: deps.secretBox, policy: deps.policy })
  const worker = createDeliveryWorker({ ...deps, directory })
  const outbox = createOutbox({ directory, ids: deps.ids, clock: deps.clock, handoff: worker })
  return { directory, outbox, worker }
}

export type HookDelivery = ReturnType<typeof createHookDelivery>
