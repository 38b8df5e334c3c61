/**
 * Time-based and polling triggers in isolation: the occurrences a trigger's `schedule` gives for
 * a configuration, and one call of a trigger's `poll` with the items it would start runs for.
 * The configuration is checked (schema, defaults, `validate`) as a definition check would.
 */
import { Value } from '@sinclair/typebox/value'
import '../../core/plugin/formats.ts'
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { ConnectorData, PollItem, TriggerDefinition } from '../../core/plugin/sdk.ts'
import { pluginCrypto } from '../../core/plugin/webhook-crypto.ts'
import { type FakeHttp, fakeResponse } from './action.ts'
import { TestKitError } from './trigger.ts'

/** The configuration with its defaults, checked against the payload schema and `validate`. */
function checkedConfig<C extends TObject, K>(
  trigger: TriggerDefinition<C, TSchema, TObject, K>,
  config: unknown,
): Static<C> {
  const withDefaults = Value.Default(trigger.payload, structuredClone(config ?? {})) as Static<C>
  if (!Value.Check(trigger.payload, withDefaults)) {
    const problems = [...Value.Errors(trigger.payload, withDefaults)].slice(0, 5)
    throw new TestKitError(
      `the configuration of ${trigger.type} does not match its schema (${problems.map((e) => `${e.path || '/'}: ${e.message}`).join('; ')})`,
    )
  }
  const invalid = trigger.validate?.(withDefaults) ?? []
  if (invalid.length)
    throw new TestKitError(
      `the configuration of ${trigger.type} is invalid (${invalid.map((p) => `${p.path ?? '/'}: ${p.message}`).join('; ')})`,
    )
  return withDefaults
}

/**
 * The next `count` occurrences (milliseconds since the epoch) strictly after `after`, fewer when
 * the schedule ends.
 *
 * @example
 * ```ts
 * expect(nextTicks(every, { minutes: 15 }, { after: Date.parse('2030-01-01T00:05:00Z'), count: 2 })).toEqual([
 *   Date.parse('2030-01-01T00:15:00Z'), Date.parse('2030-01-01T00:30:00Z'),
 * ])
 * ```
 */
export function nextTicks<C extends TObject, K>(
  trigger: TriggerDefinition<C, TSchema, TObject, K>,
  config: Static<C> | Record<string, unknown>,
  options: { after?: number; count?: number } = {},
): number[] {
  if (!trigger.schedule) throw new TestKitError(`${trigger.type} has no schedule: it is not a time-based trigger`)
  const schedule = trigger.schedule(checkedConfig(trigger, config))
  const ticks: number[] = []
  let after = options.after ?? Date.now()
  while (ticks.length < (options.count ?? 1)) {
    const next = schedule.next(after)
    if (next === null) break
    if (!Number.isFinite(next) || next <= after)
      throw new TestKitError(`schedule.next(${after}) answered ${next}: not a time strictly after it`)
    ticks.push(next)
    after = next
  }
  return ticks
}

export interface RunPollOptions<K = ConnectorData> {
  /** The trigger node's payload (defaults applied, checked). */
  payload?: Record<string, unknown>
  /** The connector data the poll would get. */
  connector?: K | null
  /** What the previous poll returned as `cursor` (default: null, a first poll). */
  cursor?: unknown
  /** Keys the host has already seen: their items are not `fresh`. */
  seen?: readonly string[]
  /** Answers the poll's HTTP requests; without it, any request throws. */
  http?: FakeHttp
  /** The clock, in milliseconds since the epoch (default: now). */
  now?: number
  signal?: AbortSignal
}

export interface PollRun {
  /** Every item the poll returned, in order. */
  items: PollItem[]
  /** The cursor the host would keep: the returned one, or the one given when the poll returned none. */
  cursor: unknown
  /** The items that would start a run: keys not in `seen`, the first of each key. */
  fresh: PollItem[]
  /** The lines the poll logged. */
  logs: string[]
  /** The HTTP requests it sent, in order. */
  requests: { method: string; url: string; headers?: Record<string, string>; body?: string }[]
}

/**
 * Calls a polling trigger's `poll` once, with the context the host gives it.
 *
 * @example
 * ```ts
 * const out = await runPoll(feedItem, { payload: { url: 'https://blog.example/rss' }, seen: ['a'], http: () => new Response(rss) })
 * expect(out.fresh.map((i) => i.key)).toEqual(['b'])
 * ```
 */
export async function runPoll<C extends TObject, K>(
  trigger: TriggerDefinition<C, TSchema, TObject, K>,
  options: RunPollOptions<K> = {},
): Promise<PollRun> {
  if (!trigger.poll) throw new TestKitError(`${trigger.type} has no poll: it is not a polling trigger`)
  const payload = checkedConfig(trigger, options.payload)
  const logs: string[] = []
  const requests: PollRun['requests'] = []
  const result = await trigger.poll.poll({
    payload,
    connector: options.connector ?? null,
    cursor: options.cursor ?? null,
    trigger: { organizationId: 'org_test', workflowId: 'wf_test', nodeId: 'root' },
    http: {
      async send(request) {
        requests.push(request)
        if (!options.http)
          throw new Error(`no HTTP in this test: pass options.http to answer ${request.method} ${request.url}`)
        return fakeResponse(await options.http(request))
      },
    },
    crypto: pluginCrypto,
    log: (message, fields) => void logs.push(fields ? `${message} ${JSON.stringify(fields)}` : message),
    now: () => options.now ?? Date.now(),
    signal: options.signal ?? new AbortController().signal,
  })
  if (!result || !Array.isArray(result.items)) throw new TestKitError('poll must return { items: [...] }')
  result.items.forEach((item, i) => {
    if (!item || typeof item.key !== 'string' || item.key === '')
      throw new TestKitError(`items[${i}] needs a non-empty string key`)
  })
  const seen = new Set(options.seen ?? [])
  const items = [...result.items]
  const fresh = items.filter((item, i) => !seen.has(item.key) && items.findIndex((o) => o.key === item.key) === i)
  const cursor = result.cursor === undefined ? (options.cursor ?? null) : result.cursor
  return { items, cursor, fresh, logs, requests }
}
