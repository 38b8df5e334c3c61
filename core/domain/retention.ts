/**
 * Run retention as people write it: `30d`, `12h`, `1m`, or `0` for "keep for ever". The
 * installation sets a default (AUTOMATON_RUN_RETENTION), an organization may replace it, and a
 * workflow may only shorten what applies to it.
 */
import { type Static, Type as t } from '@sinclair/typebox'
import { parseDurationMs } from '../duration.ts'

/** The shortest retention other than 0: a run is kept at least this long after it finished. */
export const MIN_RETENTION_MS = 60_000

/** Whole minutes, hours, days or weeks, or 0: `90m`, `36h`, `30d`, `2w`. */
export const RETENTION_PATTERN = '^(0|[1-9][0-9]*(m|h|d|w))$'

export const RunRetention = t.String({
  pattern: RETENTION_PATTERN,
  description:
    'How long finished runs are kept: whole minutes, hours, days or weeks (`90m`, `12h`, `30d`, `2w`); `0` keeps them for ever',
  examples: ['30d'],
})

/** Milliseconds of a retention text (0 = for ever); null when it is not one or is below the minimum. */
export function parseRetention(text: string): number | null {
  if (!new RegExp(RETENTION_PATTERN).test(text.trim())) return null
  const ms = parseDurationMs(text)
  if (ms === null) return null
  if (ms !== 0 && ms < MIN_RETENTION_MS) return null
  return ms
}

/** The shortest of several retentions, where 0 (for ever) is the longest. */
export function shortestRetention(...values: ReadonlyArray<number | null | undefined>): number {
  let out = 0
  for (const v of values) if (v && (out === 0 || v < out)) out = v
  return out
}

/** Writes milliseconds the way an operator would (`30d`, `36h`, `90m`, `45s`; `0` for ever). */
export function formatRetention(ms: number): string {
  if (ms === 0) return '0'
  for (const [unit, size] of [
    ['w', 604_800_000],
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}

export const OrganizationSettings = t.Object(
  {
    organizationId: t.String(),
    runRetention: t.Union([RunRetention, t.Null()], {
      description: "The organization's own retention; null follows the installation's default",
    }),
    effectiveRunRetention: t.String({
      description: "What applies to the organization's runs (a workflow may shorten it)",
    }),
    ssoRequired: t.Boolean({
      description: 'Whether its members must sign in with single sign-on (password sign-in refused)',
    }),
  },
  { $id: 'OrganizationSettings' },
)
export type OrganizationSettings = Static<typeof OrganizationSettings>

export const OrganizationSettingsBody = t.Object({
  runRetention: t.Optional(t.Union([RunRetention, t.Null()])),
  ssoRequired: t.Optional(t.Boolean()),
})
export type OrganizationSettingsBody = Static<typeof OrganizationSettingsBody>
