/**
 * A workflow's flow control (`flowControl`, kept with each version): which of its runs start now,
 * which wait, and which are refused, per key. A key is a template over the trigger's data
 * (`{{root.result.body.customerId}}`); a rule without one shares one key across all runs.
 * docs/runs.md describes each rule and how it differs from `cooldownMs` and `maxRuns`.
 */
import { type Static, Type as t } from '@sinclair/typebox'
import { badRequest, type ErrorDetail } from '../errors.ts'

const MAX_PERIOD_MS = 7 * 24 * 3600 * 1000
const Key = t.String({
  minLength: 1,
  maxLength: 500,
  description: 'a template over the trigger data, e.g. `{{root.result.body.customerId}}`; left out: one shared key',
})
const Limit = t.Integer({ minimum: 1, maximum: 100_000 })
const Period = t.Integer({ minimum: 1, maximum: MAX_PERIOD_MS })

export const CONCURRENCY_ON_LIMIT = ['queue', 'cancel-in-progress', 'skip'] as const

export const FlowControl = t.Object(
  {
    concurrency: t.Optional(
      t.Object({
        key: t.Optional(Key),
        limit: Limit,
        onLimit: t.Optional(
          t.Union(
            CONCURRENCY_ON_LIMIT.map((v) => t.Literal(v)),
            { default: 'queue' },
          ),
        ),
      }),
    ),
    throttle: t.Optional(t.Object({ key: t.Optional(Key), limit: Limit, periodMs: Period, burst: t.Optional(Limit) })),
    rateLimit: t.Optional(t.Object({ key: t.Optional(Key), limit: Limit, periodMs: Period })),
    debounce: t.Optional(t.Object({ key: t.Optional(Key), periodMs: Period, maxWaitMs: t.Optional(Period) })),
    priority: t.Optional(
      t.Union([t.Integer({ minimum: -100, maximum: 100 }), t.String({ minLength: 1, maxLength: 500 })], {
        description: 'an integer from -100 to 100, or a template giving one (higher starts first)',
      }),
    ),
  },
  { additionalProperties: false },
)
export type FlowControl = Static<typeof FlowControl>

/**
 * Combinations refused on save. Rules combine in order (debounce, then throttle, then concurrency,
 * and a rate limit with any of them), but a concurrency limit that skips or cancels decides as its
 * event arrives: it answers that event's caller (`skipped`), or cancels the running run in favour
 * of the newest event. A run that a throttle or debounce held reaches the concurrency limit later,
 * after its caller was answered and after newer events came, so neither choice can mean what it
 * says there; with those rules, `onLimit` must be `queue`.
 */
const REFUSED: readonly [string, (fc: FlowControl) => boolean, string][] = [
  [
    '/flowControl/concurrency/onLimit',
    (fc) => (fc.concurrency?.onLimit ?? 'queue') !== 'queue' && !!(fc.throttle ?? fc.debounce),
    'must be queue with throttle or debounce (a held run reaches the limit after its caller was answered)',
  ],
]

/** The rules that take a key. */
const KEYED_RULES = ['rateLimit', 'concurrency', 'throttle', 'debounce'] as const

/**
 * What is wrong with a flow control beyond its shape: a key or priority template whose braces do
 * not pair, and a debounce whose maximum wait is shorter than its period. Paths are under
 * `/flowControl`.
 */
export function flowControlProblems(fc: FlowControl | null | undefined): ErrorDetail[] {
  if (!fc) return []
  const problems: ErrorDetail[] = []
  for (const rule of KEYED_RULES) {
    const key = fc[rule]?.key
    if (key !== undefined && !bracesPair(key))
      problems.push({ path: `/flowControl/${rule}/key`, message: 'each {{ must be closed by }}' })
  }
  if (typeof fc.priority === 'string' && !(bracesPair(fc.priority) && fc.priority.includes('{{')))
    problems.push({ path: '/flowControl/priority', message: 'must be an integer or a {{ }} template giving one' })
  for (const [path, refused, message] of REFUSED) if (refused(fc)) problems.push({ path, message })
  const debounce = fc.debounce
  if (debounce?.maxWaitMs !== undefined && debounce.maxWaitMs < debounce.periodMs)
    problems.push({ path: '/flowControl/debounce/maxWaitMs', message: 'must be at least periodMs' })
  return problems
}

/** Whether every `{{` is closed by a `}}` before the next one opens. */
function bracesPair(text: string): boolean {
  let open = false
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2)
    if (pair === '{{') {
      if (open) return false
      open = true
      i++
    } else if (pair === '}}' && open) {
      open = false
      i++
    }
  }
  return !open
}

/** A priority as the engine orders by it: an integer clamped to −100..100 (0 for anything else). */
export function clampPriority(value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isFinite(n)) return 0
  return Math.max(-100, Math.min(100, Math.round(n)))
}

/** Refuses a flow control whose templates or debounce cannot work (400, one detail per problem). */
export function checkFlowControl(fc: FlowControl | null | undefined): void {
  const problems = flowControlProblems(fc)
  if (problems.length > 0) throw badRequest('flowControl is invalid', problems)
}
