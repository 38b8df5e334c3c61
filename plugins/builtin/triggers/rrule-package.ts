/**
 * The `rrule` package, imported the same way on Bun and Deno: Deno loads its CommonJS build,
 * whose exports it sees only as the default export; Bun loads its ES module build.
 */
import * as namespace from 'rrule'

const lib = ((namespace as { default?: typeof namespace }).default ?? namespace) as typeof namespace

export const { Frequency, RRule, RRuleSet, Weekday } = lib
export type { Options } from 'rrule'
export type Weekday = InstanceType<typeof lib.Weekday>
export type RRuleSet = InstanceType<typeof lib.RRuleSet>
