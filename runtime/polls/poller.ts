/**
 * The poller: calls the `poll` of every live polling trigger instance at its interval and starts
 * one run per item it has not seen, exactly once across processes and restarts.
 *
 * A poll calls the network, so it cannot happen inside the transaction that starts its runs (as
 * a schedule tick's claim does). Instead:
 * 1. Lease: a conditional UPDATE takes a due row that no live lease holds and moves its `fence`
 *    on by one; only one poller can take a given fence.
 * 2. Poll: the plugin is called outside any transaction, aborted before the lease runs out.
 * 3. Commit: one transaction locks the row only if its fence is still the leased one, admits a
 *    run per unseen item (in the order the plugin returned them) and writes the new cursor and
 *    seen keys. A poller whose lease expired (it was frozen, or slow) finds the fence moved on
 *    and commits nothing; a crash before the commit leaves the row to be leased again when the
 *    lease expires, and the items are still unseen; a crash after it has the runs admitted.
 * Each run's idempotency key (`poll:<row>:<sha256 of the item key>`) would refuse a second run of
 * an item even if a commit were ever repeated.
 *
 * The first poll of a new trigger instance records the items already there and starts nothing,
 * unless its payload says `fireExisting: true`. A failed poll backs off exponentially (to at
 * most an hour) and keeps its error on the row, visible through the API.
 */
import type { Bus } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import type { PollItem, PollResult } from '../../core/plugin/lifecycle.ts'
import type { AnyTrigger, Registry } from '../../core/plugin/registry.ts'
import { sha256Hex } from '../../core/security/hash.ts'
import { type PollLease, type TriggerPollRow, triggerPolls } from '../../core/store/trigger-polls.ts'
import { workflows } from '../../core/store/workflows.ts'
import { iso } from '../../core/time.ts'
import type { EngineDispatcher } from '../engine/types.ts'
import { createDueRows } from '../due-rows.ts'
import { connectorFor, deadline, handlerTools, type PluginHostDeps } from '../plugin-host/tools.ts'
import type { PollConfig, PollReconciler } from './reconcile.ts'

export interface PollerDeps extends PluginHostDeps {
  store: Store
  bus: Bus
  clock: Clock
  logger: Logger
  registry: Registry
  dispatcher: EngineDispatcher
  reconciler: PollReconciler
  /** This process's worker id: the lease owner. */
  owner: string
  /** The shortest interval between two polls of one trigger (AUTOMATON_POLL_MIN_INTERVAL_MS, default 10 s). */
  minIntervalMs: number
  /** How long one poll may take; the lease lasts twice that (default 30 s). */
  pollTimeoutMs?: number
  /** How often the loop looks for due rows it heard nothing of (default 1 s). */
  loopMs?: number
  batch?: number
}

/** What one poll of a row came to. */
export type PollOutcome = 'polled' | 'failed' | 'lost' | 'busy'

export interface Poller {
  start(): void
  stop(): Promise<void>
  /** Polls what is due now; resolves to the number of runs started. */
  tick(): Promise<number>
  /** Reconciles every workflow that has, or should have, poll rows (at start). */
  reconcileAll(): Promise<number>
}

/** Keys kept per trigger instance: enough for any feed's window, bounded so a row stays small. */
const SEEN_MIN = 500
const SEEN_MAX = 5000
const MAX_BACKOFF_MS = 60 * 60_000
const WAKING_EVENTS = new Set(['workflow.published', 'workflow.resumed', 'workflow.refilled', 'workflow.unarchived'])

export function createPoller(deps: PollerDeps): Poller {
  const timeoutMs = deps.pollTimeoutMs ?? 30_000
  const leaseMs = 2 * timeoutMs
  const batch = deps.batch ?? 50

  async function pollOne(row: TriggerPollRow, stopping: AbortSignal): Promise<{ outcome: PollOutcome; runs: number }> {
    const now = deps.clock.now()
    const leased = await deps.store.write((tx) =>
      triggerPolls.lease(tx, { id: row.id, owner: deps.owner, now, until: now + leaseMs }),
    )
    if (!leased) return { outcome: 'busy', runs: 0 }
    const lease: PollLease = { id: row.id, fence: Number(leased.fence) }
    const trigger = deps.registry.trigger(row.trigger_type)
    const config = JSON.parse(row.config) as PollConfig
    let result: PollResult
    try {
      if (!trigger?.poll) throw new Error(`no loaded plugin provides the polling trigger "${row.trigger_type}"`)
      result = await callPoll(trigger, row, config, stopping)
    } catch (error) {
      await fail(lease, row, error)
      return { outcome: 'failed', runs: 0 }
    }
    return commitPoll(deps, lease, row, trigger, config, result)
  }

  async function callPoll(
    trigger: AnyTrigger,
    row: TriggerPollRow,
    config: PollConfig,
    stopping: AbortSignal,
  ): Promise<PollResult> {
    const signal = deadline(timeoutMs, stopping)
    const fields = { pollId: row.id, workflowId: row.workflow_id, nodeId: row.node_id, trigger: row.trigger_type }
    const connector = await connectorFor(deps, row.organization_id, trigger.connector, config.connector)
    const result = await trigger.poll!.poll({
      ...handlerTools(deps, signal, fields),
      payload: config.payload,
      connector,
      cursor: row.cursor === null ? null : JSON.parse(row.cursor),
      trigger: { organizationId: row.organization_id, workflowId: row.workflow_id, nodeId: row.node_id },
    })
    signal.throwIfAborted()
    return checkResult(result)
  }

  async function fail(lease: PollLease, row: TriggerPollRow, error: unknown) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500)
    const now = deps.clock.now()
    const backoff = Math.min(MAX_BACKOFF_MS, deps.minIntervalMs * 2 ** Math.min(row.failures, 16))
    deps.logger.warn('a polling trigger failed', { pollId: row.id, workflowId: row.workflow_id, error: message })
    await deps.store.write((tx) => triggerPolls.failed(tx, { lease, error: message, next: now + backoff, at: now }))
  }

  const rows = createDueRows<TriggerPollRow>({
    clock: deps.clock,
    bus: deps.bus,
    logger: deps.logger,
    name: 'the poller',
    loopMs: deps.loopMs,
    wakingEvents: WAKING_EVENTS,
    due: (now) => triggerPolls.due(deps.store, now, batch),
    handle: async (row, stopping) => (await pollOne(row, stopping)).runs,
    nextDue: () => triggerPolls.nextDue(deps.store),
    describe: (row) => ({ pollId: row.id, workflowId: row.workflow_id }),
  })

  return {
    tick: rows.tick,
    start: rows.start,
    stop: rows.stop,
    async reconcileAll() {
      const ids = await deps.reconciler.candidates(deps.store)
      await Promise.all(ids.map((id) => deps.store.write((tx) => deps.reconciler.reconcile(tx, id))))
      return ids.length
    },
  }
}

/** The trigger's interval for this payload, never below the server's floor. */
function intervalOf(deps: PollerDeps, trigger: AnyTrigger, payload: Record<string, unknown>): number {
  const poll = trigger.poll!
  const wanted = typeof poll.intervalMs === 'function' ? poll.intervalMs(payload) : poll.intervalMs
  return Math.max(deps.minIntervalMs, Number.isFinite(wanted) ? wanted : deps.minIntervalMs)
}

/** Admits a run per unseen item and records the poll, in one transaction, only while the lease's fence holds. */
async function commitPoll(
  deps: PollerDeps,
  lease: PollLease,
  row: TriggerPollRow,
  trigger: AnyTrigger,
  config: PollConfig,
  result: PollResult,
): Promise<{ outcome: PollOutcome; runs: number }> {
  return deps.dispatcher.transaction(async (tx, admit) => {
    const now = deps.clock.now()
    // The workflow row first, then the poll row: the order every writer of both uses.
    await workflows.lockById(tx, deps.store.dialect, row.workflow_id)
    const held = await triggerPolls.holding(tx, lease, now)
    if (!held) return { outcome: 'lost' as const, runs: 0 }
    const seen = new Set<string>(JSON.parse(held.seen) as string[])
    const fresh = result.items.filter((item, i) => !seen.has(item.key) && firstOf(result.items, item.key) === i)
    const fire = held.primed === 1 || config.payload.fireExisting === true
    let runs = 0
    if (fire) {
      for (const item of fresh) {
        const admitted = await admit({
          organizationId: held.organization_id,
          workflowId: held.workflow_id,
          version: 'live',
          automatic: true,
          triggeredBy: 'integration',
          triggerNodeId: held.node_id,
          idempotencyKey: `poll:${held.id}:${await sha256Hex(item.key)}`,
          event: { type: trigger.type, body: item.body, headers: {}, receivedAt: iso(now) },
        })
        if (admitted.action === 'triggered') runs++
      }
    }
    await triggerPolls.polled(tx, {
      id: held.id,
      cursor: result.cursor === undefined ? held.cursor : JSON.stringify(result.cursor ?? null),
      seen: JSON.stringify(keep([...seen], result.items)),
      items: result.items.length,
      runs,
      next: now + intervalOf(deps, trigger, config.payload),
      at: now,
    })
    return { outcome: 'polled' as const, runs }
  })
}

function firstOf(items: readonly PollItem[], key: string): number {
  return items.findIndex((i) => i.key === key)
}

/**
 * The keys to keep: this poll's keys as the newest (so an item the plugin still returns is never
 * forgotten), then the older ones, within a bound of at least twice a poll's items.
 */
function keep(seen: string[], items: readonly PollItem[]): string[] {
  const now = new Set(items.map((i) => i.key))
  const all = [...seen.filter((k) => !now.has(k)), ...now]
  const bound = Math.min(SEEN_MAX, Math.max(SEEN_MIN, 2 * now.size))
  return all.length > bound ? all.slice(all.length - bound) : all
}

/** A plugin's answer, checked before anything is admitted from it. */
function checkResult(result: PollResult): PollResult {
  if (!result || !Array.isArray(result.items)) throw new Error('poll must return { items: [...] }')
  for (const item of result.items) {
    if (!item || typeof item.key !== 'string' || item.key === '')
      throw new Error('every polled item needs a non-empty string `key`')
  }
  return result
}
