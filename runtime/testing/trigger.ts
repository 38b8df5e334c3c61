/**
 * Checks a trigger's matching in isolation: the configuration is validated against the trigger's
 * payload schema and the event against its result schema (as a definition check and the router
 * would), then `matches` / `matchesWait` (or their defaults) decide. Unlike the router, a
 * throwing `matches` throws here, so the test shows why.
 */
import { Value } from '@sinclair/typebox/value'
import '../../core/plugin/formats.ts'
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { TriggerDefinition } from '../../core/plugin/sdk.ts'
import { fieldsMatch } from '../../core/plugin/matching.ts'

export class TestKitError extends Error {
  override name = 'TestKitError'
}

function assertValid(schema: TSchema, value: unknown, what: string): void {
  if (Value.Check(schema, value)) return
  const problems = [...Value.Errors(schema, value)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`)
  throw new TestKitError(`${what} does not match its schema (${problems.join('; ')})`)
}

/** The event a run of this trigger would start with, around a body. */
export function triggerEvent(
  trigger: { type: string },
  body: unknown,
  headers: Record<string, string> = {},
  receivedAt = new Date().toISOString(),
) {
  return { type: trigger.type, body, headers, receivedAt }
}

/**
 * Whether an event body starts a workflow whose trigger node has `config`.
 *
 * @example
 * ```ts
 * expect(matchTrigger(alert, { city: 'Oslo' }, { city: 'Oslo', level: 'red' })).toBe(true)
 * ```
 */
export function matchTrigger<C extends TObject, E extends TSchema, W extends TObject>(
  trigger: TriggerDefinition<C, E, W>,
  config: Static<C> | Record<string, unknown>,
  body: unknown,
): boolean {
  const withDefaults = Value.Default(trigger.payload, structuredClone(config)) as Static<C>
  assertValid(trigger.payload, withDefaults, `the configuration of ${trigger.type}`)
  const event = triggerEvent(trigger, body) as Static<E>
  assertValid(trigger.result, event, `the ${trigger.type} event`)
  return trigger.matches ? trigger.matches(withDefaults, event) === true : true
}

/** Whether an event body resumes a node waiting on this trigger with `match` (its triggerConfig). */
export function matchWait<C extends TObject, E extends TSchema, W extends TObject>(
  trigger: TriggerDefinition<C, E, W>,
  match: Static<W> | Record<string, unknown>,
  body: unknown,
): boolean {
  if (trigger.waitPayload) assertValid(trigger.waitPayload, match, `the wait match of ${trigger.type}`)
  const event = triggerEvent(trigger, body) as Static<E>
  assertValid(trigger.result, event, `the ${trigger.type} event`)
  return trigger.matchesWait
    ? trigger.matchesWait(match as Static<W>, event) === true
    : fieldsMatch(match as Record<string, unknown>, event as { body?: unknown })
}
