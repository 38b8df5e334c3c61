/**
 * The pruner: deletes finished runs older than their retention, with their journal, hook
 * deliveries and stored webhook events, in small batches that each are one short transaction,
 * so requests and runs keep flowing between them. Pruned runs stay counted through the daily
 * roll-up (core/store/retention.ts). Waiting and running runs are never touched.
 *
 * Retention: the organization's own setting, else the installation's; a workflow's
 * `runRetention` may only shorten it. 0 keeps for ever. Ended sign-in sessions go a day after they end,
 * and so do the counts of failed sign-ins a day after their last failure.
 */
import { MIN_RETENTION_MS, parseRetention, shortestRetention } from '../core/domain/retention.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import { retention } from '../core/store/retention.ts'
import { signInFailures } from '../core/store/sign-in-failures.ts'
import { sessions } from '../core/store/users.ts'

export interface PrunerDeps {
  store: Store
  clock: Clock
  logger: Logger
  /** AUTOMATON_RUN_RETENTION in milliseconds; 0 keeps for ever. */
  defaultRetentionMs: number
  /** Time between passes (AUTOMATON_PRUNE_INTERVAL_MS). */
  intervalMs: number
  /** Runs deleted per transaction. */
  batchSize?: number
  /** Pause between two batches, so that the writes of requests and runs go first. */
  pauseMs?: number
  /**
   * The audit log and AUTOMATON_AUDIT_RETENTION (0 keeps for ever); absent: not pruned here.
   * `keepUndelivered` (an audit endpoint is configured): records it has not acknowledged stay.
   */
  audit?: {
    log: { prune(before: number, options?: { keepUndelivered?: boolean }): Promise<number> }
    retentionMs: number
    keepUndelivered?: boolean
  }
}

export interface PruneResult {
  runs: number
  webhookEvents: number
}

/** Deletes what is past its retention, in passes every `intervalMs` once started. */
export interface Pruner {
  /** One pass now (or the one under way); tests drive it with the Clock port. */
  pruneNow(): Promise<PruneResult>
  /** Schedules a pass every interval. */
  start(): void
  /** Stops scheduling passes; resolves once the pass under way ended. */
  stop(): Promise<void>
}

export function createPruner(deps: PrunerDeps): Pruner {
  const batchSize = deps.batchSize ?? 200
  const pauseMs = deps.pauseMs ?? 5
  let timer: ReturnType<typeof setTimeout> | null = null
  let current: Promise<PruneResult> | null = null
  let stopped = true
  let stopping = false

  const pause = () => new Promise((resolve) => setTimeout(resolve, pauseMs))

  /** Deletes batches until `next` finds nothing more; returns how many runs went. */
  async function drain(next: () => Promise<{ id: string }[]>): Promise<number> {
    let total = 0
    for (;;) {
      const ids = (await next()).map((r) => r.id)
      if (ids.length === 0) return total
      total += await deps.store.write((tx) => retention.deleteRuns(tx, ids, batchSize))
      if (stopping || ids.length < batchSize) return total
      await pause()
    }
  }

  async function pass(): Promise<PruneResult> {
    const now = deps.clock.now()
    const orgs = await retention.organizations(deps.store)
    const orgRetention = new Map(orgs.map((o) => [o.id, o.run_retention_ms ?? deps.defaultRetentionMs]))
    const result: PruneResult = { runs: 0, webhookEvents: 0 }
    for (const [organizationId, keepMs] of orgRetention) {
      if (keepMs === 0) continue
      const before = now - keepMs
      result.runs += await drain(() => retention.dueInOrganization(deps.store, organizationId, before, batchSize))
      for (;;) {
        const n = await deps.store.write((tx) => retention.deleteWebhookEvents(tx, organizationId, before, batchSize))
        result.webhookEvents += n
        if (stopping || n < batchSize) break
        await pause()
      }
    }
    for (const w of await retention.workflowRetentions(deps.store)) {
      const own = parseRetention(String((JSON.parse(w.content) as { runRetention?: unknown }).runRetention ?? ''))
      const keepMs = shortestRetention(orgRetention.get(w.organization_id), own)
      // Only a workflow that shortens its organization's retention needs a pass of its own.
      if (!own || keepMs !== own || keepMs < MIN_RETENTION_MS) continue
      result.runs += await drain(() =>
        retention.dueInWorkflow(deps.store, w.organization_id, w.id, now - keepMs, batchSize),
      )
    }
    await deps.store.write((tx) =>
      retention.deletePublicUsageBefore(tx, new Date(now - 86_400_000).toISOString().slice(0, 10)),
    )
    // Sign-in sessions that ended a day ago or more can never be used again.
    await deps.store.write((tx) => sessions.prune(tx, now - 86_400_000))
    // A day after their last failure, every failure of an account or address has left its window.
    await deps.store.write((tx) => signInFailures.prune(tx, now - 86_400_000))
    // Audit records past their retention go from the oldest; the chain keeps a checkpoint.
    if (deps.audit && deps.audit.retentionMs > 0)
      await deps.audit.log.prune(now - deps.audit.retentionMs, { keepUndelivered: deps.audit.keepUndelivered })
    if (result.runs > 0 || result.webhookEvents > 0) {
      await deps.store.compact()
      deps.logger.info('pruned finished runs past their retention', { ...result })
    }
    return result
  }

  function schedule() {
    if (stopped) return
    timer = setTimeout(() => {
      timer = null
      pruneNow()
        .catch((error) => deps.logger.warn('pruning failed; the next pass tries again', { error: String(error) }))
        .finally(schedule)
    }, deps.intervalMs)
    ;(timer as { unref?: () => void }).unref?.()
  }

  /** One pass now (or the one under way); tests drive it with the Clock port. */
  function pruneNow(): Promise<PruneResult> {
    current ??= pass().finally(() => {
      current = null
    })
    return current
  }

  return {
    pruneNow,
    start() {
      stopped = false
      schedule()
    },
    async stop() {
      stopped = true
      stopping = true
      if (timer) clearTimeout(timer)
      timer = null
      await current?.catch(() => {})
    },
  }
}
