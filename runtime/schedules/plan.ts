/**
 * What to do with a schedule whose tick is due: fire it, or treat it (and the ticks after it)
 * as missed and apply the trigger's catch-up policy. Pure: the scheduler turns a plan into
 * one conditional UPDATE and at most one run.
 *
 * A tick is on time while it is no later than the grace (AUTOMATON_SCHEDULE_GRACE_MS) and no
 * later than half the gap to the tick after it; a later tick was missed: the service was
 * down, or too busy to fire it in time.
 */
import type { CatchUpPolicy } from '../../core/plugin/sdk.ts'

export interface TickPlan {
  /** The tick to start a run for now, or null. */
  fire: number | null
  /** Whether `fire` is a missed tick that runs late because of the catch-up policy. */
  late: boolean
  /** The schedule's next tick after this step. */
  next: number | null
  /** Missed ticks that start no run. */
  skipped: number
}

export interface PlanInput {
  next(after: number): number | null
  due: number
  now: number
  catchUp: CatchUpPolicy
  catchUpLimit: number
  graceMs: number
}

/** Missed ticks walked one by one before the rest of a long outage is estimated. */
export const SCAN_LIMIT = 1000

export function planTick(input: PlanInput): TickPlan {
  const { next, due, now, graceMs } = input
  const missed = (tick: number, following: number | null) =>
    now - tick > Math.min(graceMs, following === null ? graceMs : (following - tick) / 2)
  let following = next(due)
  if (!missed(due, following)) return { fire: due, late: false, next: following, skipped: 0 }

  // Walk the run of missed ticks, keeping the latest ones the policy may still fire.
  const keep = input.catchUp === 'all' ? input.catchUpLimit : 1
  const recent = [due]
  let count = 1
  let last = due
  let jumped = false
  while (following !== null && following <= now) {
    const after = next(following)
    if (!missed(following, after)) break
    count++
    recent.push(following)
    if (recent.length > keep) recent.shift()
    last = following
    following = after
    if (count >= SCAN_LIMIT && !jumped && following !== null) {
      // A long outage: estimate the ticks in its middle from their average gap, walk its end.
      jumped = true
      const gap = Math.max(1, (last - due) / (count - 1))
      const target = now - Math.max(graceMs, (keep + 1) * gap)
      if (target > following) {
        count += Math.floor((target - following) / gap)
        recent.length = 0
        following = next(target)
      }
    }
  }
  if (recent.length === 0) return { fire: null, late: false, next: following, skipped: count }
  switch (input.catchUp) {
    case 'last':
      return { fire: recent[recent.length - 1], late: true, next: following, skipped: count - 1 }
    case 'all': {
      // The oldest kept tick fires now; the claim moves to the tick after it, so the others fire in the next steps.
      const first = recent[0]
      return { fire: first, late: true, next: first === last ? following : next(first), skipped: count - recent.length }
    }
    default:
      return { fire: null, late: false, next: following, skipped: count }
  }
}
