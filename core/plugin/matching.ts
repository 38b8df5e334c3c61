/**
 * Whether an event starts a configured trigger or resumes a waiting node, with the defaults of
 * the SDK: a trigger without `matches` takes every event of its type; a wait without
 * `matchesWait` takes an event whose body has, at each dot path of `match`, an equal value.
 * A `matches` that throws counts as "no match" (the error is returned for logging); routing
 * never fails because of one plugin.
 */
import type { AnyTrigger } from './definitions.ts'
import { errorMessage } from '../errors.ts'

export interface MatchOutcome {
  readonly matched: boolean
  readonly error?: string
}

/** The value at a dot path (`order.items.0.sku`) of a value, or undefined. */
export function valueAtPath(value: unknown, path: string): unknown {
  let current = value
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

/** Structural equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return (
    ka.length === kb.length &&
    ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  )
}

/** The default wait match: every `match` entry equals the value at that dot path of the event body. */
export function fieldsMatch(
  match: Readonly<Record<string, unknown>> | null | undefined,
  event: { body?: unknown },
): boolean {
  return Object.entries(match ?? {}).every(([path, expected]) => jsonEqual(valueAtPath(event.body, path), expected))
}

/** Whether `event` starts a workflow whose trigger node of this type has `config`. */
export function matchTrigger(trigger: AnyTrigger, config: Record<string, unknown>, event: unknown): MatchOutcome {
  if (!trigger.matches) return { matched: true }
  try {
    return { matched: trigger.matches(config ?? {}, event) === true }
  } catch (error) {
    return { matched: false, error: `trigger "${trigger.type}" matches() threw: ${errorMessage(error)}` }
  }
}

/** Whether `event` resumes a node waiting on this trigger type with `match`. */
export function matchWait(
  trigger: AnyTrigger | undefined,
  match: Record<string, unknown> | null | undefined,
  event: unknown,
): MatchOutcome {
  try {
    if (trigger?.matchesWait) return { matched: trigger.matchesWait(match ?? {}, event) === true }
    return { matched: fieldsMatch(match, event as { body?: unknown }) }
  } catch (error) {
    return { matched: false, error: `trigger "${trigger?.type}" matchesWait() threw: ${errorMessage(error)}` }
  }
}
