/**
 * How a run becomes live in the executor: a fresh run from what admission handed over (no
 * database read), any other by taking ownership of its row and restoring its snapshot (or
 * starting it from its stored input), then delivering its inbox.
 */
import { runInbox } from '../../core/store/run-side.ts'
import type { Definition } from '../../core/domain/workflow.ts'
import { parseJson } from '../../core/json.ts'
import { type RunRow, runs } from '../../core/store/runs.ts'
import { BoundedMap } from '../../core/bounded-map.ts'
import { attach, deliverInbox, type Entry, type ExecutorContext, settleIfDone } from './executor-live.ts'
import { startState, type RunInput, type RunState } from './state.ts'
import { restoreSnapshot } from './stored-snapshot.ts'
import type { FreshRun, RunMeta } from './types.ts'

/** Makes runs live in the executor. */
export interface RunLoader {
  /** A run admitted here; `woken`: inbox events arrived while it was queued. */
  activateFresh(entry: Entry, fresh: FreshRun, woken: boolean): Promise<void>
  /** A run read from the store, if this worker may own it and it has something to do. */
  activateStored(entry: Entry): Promise<void>
}

type StoredDefinition = { definition: Definition; variableDefs?: RunMeta['variableDefs'] }
/** A run's row as a worker takes it, and whether inbox events wait for it. */
type Acquired = RunRow & { has_inbox: unknown }
type Answer = { resolve(row: Acquired | undefined): void; reject(error: unknown): void }

export function createRunLoader(ctx: ExecutorContext, staleBefore: () => number): RunLoader {
  const { deps } = ctx
  /** A stored definition (and its variable definitions), parsed once per hash: a hash names one body forever. */
  const definitions = new BoundedMap<string, StoredDefinition>(1000)
  async function storedDefinition(hash: string) {
    let stored = definitions.get(hash)
    if (!stored) {
      const body = await runs.definition(deps.store, hash)
      stored = parseJson<StoredDefinition>(body?.body, { definition: { nodes: {} } })
      if (body) definitions.set(hash, stored)
    }
    return stored
  }

  /**
   * Takes ownership of a run and reads it (runs.acquire); undefined when it is not this worker's
   * to run. The runs asked for in one turn (an executor's turn starts a slice of them) are taken
   * in one statement.
   */
  let asked: Map<string, Answer[]> | null = null
  function acquire(runId: string): Promise<Acquired | undefined> {
    if (!asked) {
      asked = new Map()
      queueMicrotask(acquireAsked)
    }
    const waiting = asked.get(runId) ?? []
    asked.set(runId, waiting)
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }))
  }
  function acquireAsked() {
    const batch = asked!
    asked = null
    const stale = staleBefore()
    const ids = [...batch.keys()]
    deps.store
      .write(async (tx) =>
        ids.length === 1
          ? [await runs.acquire(tx, ids[0], deps.workerId, stale)]
          : runs.acquireMany(tx, deps.store.dialect, ids, deps.workerId, stale),
      )
      .then(
        (rows) => {
          const byId = new Map(rows.flatMap((r) => (r ? [[r.id, r] as const] : [])))
          for (const [id, waiting] of batch) for (const w of waiting) w.resolve(byId.get(id))
        },
        (error) => {
          for (const waiting of batch.values()) for (const w of waiting) w.reject(error)
        },
      )
  }

  return {
    async activateFresh(entry, fresh, woken) {
      const plan = deps.plans.get(fresh.meta.definitionHash, () => fresh.definition)
      const step = startState(fresh.input, plan, ctx.branchesOf, ctx.now())
      attach(ctx, entry, fresh.meta, plan, { input: step.state }, step.events, new Set())
      if (woken)
        deliverInbox(ctx, entry).catch((error) =>
          deps.logger.error('could not read run inbox', { runId: entry.runId, error: String(error) }),
        )
    },
    async activateStored(entry) {
      const row = await acquire(entry.runId)
      if (!row) return ctx.release(entry)
      const inbox = row.has_inbox ? await runInbox.of(deps.store, entry.runId) : []
      // A waiting run with nothing to deliver stays put away.
      if (row.status === 'waiting' && inbox.length === 0) return ctx.release(entry)
      const stored = await storedDefinition(row.definition_hash)
      const plan = deps.plans.get(row.definition_hash, () => stored.definition)
      const meta = metaOf(row, stored)
      if (row.snapshot) {
        const snapshot = restoreSnapshot(row.snapshot, row.trigger_event)
        const waited = new Set<string>(
          Object.values((snapshot.context as RunState).nodes)
            .filter((n) => n.wait)
            .map((n) => n.key),
        )
        attach(ctx, entry, meta, plan, { snapshot }, [], waited, true)
      } else {
        const step = startState(inputOf(row), plan, ctx.branchesOf, ctx.now())
        attach(ctx, entry, meta, plan, { input: step.state }, step.events, new Set(), true)
      }
      entry.pulling = false
      await deliverInbox(ctx, entry, inbox)
      settleIfDone(ctx, entry)
    },
  }
}

/** What the journal needs of a stored run. */
function metaOf(row: RunRow, stored: StoredDefinition): RunMeta {
  return {
    runId: row.id,
    organizationId: row.organization_id,
    workflowId: row.workflow_id,
    workflowVersion: row.workflow_version,
    automatic: Number(row.automatic) === 1,
    live: Number(row.live) === 1,
    definitionHash: row.definition_hash,
    variableDefs: stored.variableDefs ?? [],
    lastSeq: Number(row.last_seq),
    startedAt: Number(row.started_at),
    traceparent: row.traceparent ?? null,
    traceCaller: row.trace_caller ?? null,
  }
}

/** A stored run's input, for a run that has no snapshot yet. */
function inputOf(row: RunRow): RunInput {
  return {
    runId: row.id,
    workflowId: row.workflow_id,
    organizationId: row.organization_id,
    workflowVersion: row.workflow_version,
    triggerNodeId: row.trigger_node_id,
    trigger: JSON.parse(row.trigger_event),
    vars: parseJson(row.vars, {}),
    props: parseJson(row.prop_values, {}),
    seed: parseJson(row.seed, undefined),
  }
}
