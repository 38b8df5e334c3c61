/**
 * The engine's event router: routes one integration event in one organization and stores it.
 *
 * Order of effects, in ONE transaction (runs start and waiting runs wake after the commit):
 * 1. claim the event: insert its `webhook_events` row; if a row with the same (organization,
 *    source, provider event id, trigger type) exists, this is a duplicate and nothing else
 *    happens (Postgres makes a concurrent second insert wait for the first, then skip it);
 * 2. resume the runs waiting for it: each matched `waits` row is deleted (a claim: one event
 *    resumes a wait once) and a RESUME with the event body goes to the run's inbox;
 * 3. start the live workflows whose trigger matches, except those whose waiting run this event
 *    just resumed (a reply continues the conversation it answers instead of starting another);
 *    each run's idempotency key comes from the provider event id;
 * 4. settle the row with what happened.
 *
 * The answer is the Webhook result: `triggered` when a run started, else `resumed` when a
 * waiting run resumed, else `skipped` with a reason; `runIds` lists started, then resumed runs.
 */
import type { EventRouter, TriggerEvent } from '../../core/ports/engine.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import { iso } from '../../core/time.ts'
import type { Backlog, EngineDispatcher } from '../engine/types.ts'
import { createRoutePlanner } from './route-plan.ts'
import { redactHeaders } from '../../core/security/redact.ts'
import { noMask, type SecretMasks } from '../../core/security/value-mask.ts'
import { publishEvents } from '../../core/domain-events.ts'
import type { Bus } from '../../core/ports/bus.ts'
import type { EventRecorder } from '../event-recorder.ts'
import { commitEvent } from './router-commit.ts'

export interface EventRouterDeps {
  store: Store
  registry: Registry
  dispatcher: EngineDispatcher
  clock: Clock
  ids: Ids
  logger: Logger
  /** After commit: tells whoever executes a run that its inbox has an event. */
  wake(runId: string): void
  /** An event that would start runs is refused (429) while the backlog is full; one that only resumes runs is not. */
  backlog?: Backlog
  /** The organization's secret values, masked in the event before it is stored, starts runs or resumes them. */
  masks?: SecretMasks
  /** Records the pauses of workflows whose connector the platform revoked (schedules and live triggers follow). */
  recorder?: EventRecorder
  /** Where recorded events are announced after the commit. */
  bus?: Bus
}

export function createEventRouter(deps: EventRouterDeps): EventRouter {
  const planner = createRoutePlanner({ db: deps.store, registry: deps.registry, logger: deps.logger })

  return {
    async route(unmasked) {
      const mask = deps.masks
        ? (deps.masks.peek(unmasked.organizationId) ?? (await deps.masks.of(unmasked.organizationId)))
        : noMask
      const event =
        mask === noMask ? unmasked : { ...unmasked, body: mask(unmasked.body), headers: mask(unmasked.headers) }
      const now = deps.clock.now()
      const triggerEvent: TriggerEvent = {
        type: event.triggerType,
        body: event.body ?? null,
        headers: redactHeaders(event.headers),
        receivedAt: iso(now),
      }
      const plan = await planner.plan(event, triggerEvent, now)
      if (deps.backlog && !plan.reason && plan.triggers.length > 0) deps.backlog.check(event.organizationId)
      const { result, resumed, recorded } = await commitEvent(deps, event, plan, triggerEvent, now)
      if (recorded?.length && deps.bus) publishEvents(deps.bus, recorded)
      for (const runId of resumed) deps.wake(runId)
      return result
    },
  }
}
