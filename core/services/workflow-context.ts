/**
 * What the workflow service's use cases share (reading, drafts, the lifecycle): their
 * dependencies, loading a workflow and its versions, the checks a definition must pass, and
 * `mutate`, the one way a change is written: in one transaction on the locked row, recorded as a
 * workflow event in the journal, published on the bus after commit.
 */
import type { Definition, Workflow, WorkflowContent } from '../domain/workflow.ts'
import { badRequest, conflict, type ErrorDetail, notFound } from '../errors.ts'
import { type DomainEvent, publishEvents, type RecordedEvent, recordEvents } from '../domain-events.ts'
import type { Bus } from '../ports/bus.ts'
import type { Clock } from '../ports/clock.ts'
import type { DefinitionChecker, DomainEventRecorder } from '../ports/engine.ts'
import type { Ids } from '../ports/ids.ts'
import type { NodeTester } from '../ports/node-tester.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import type { SubscriptionEnabler } from '../ports/subscriptions.ts'
import { members } from '../store/members.ts'
import { wallets } from '../store/wallets.ts'
import {
  displayVersion,
  toWorkflow,
  type VersionRow,
  versions,
  type WorkflowRow,
  workflows,
} from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import { checkIfMatch } from './workflow-etag.ts'
import { presentedOne } from './workflow-presentation.ts'

/**
 * A check that may refuse a publish (the schedule plugin's minimum interval, for one). It runs
 * inside the publish transaction: it may read through `tx`, and must not do anything else.
 */
export type PublishGuard = (
  content: WorkflowContent,
  organizationId: string,
  tx: SqlExecutor,
) => ErrorDetail[] | Promise<ErrorDetail[]>
/** Problems of a definition being saved; paths relative to the definition. */
export type SaveCheck = (definition: Definition) => Promise<ErrorDetail[]>

export interface WorkflowServiceDeps {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  checker: DefinitionChecker
  publishGuards?: PublishGuard[]
  /** Checks a definition must pass whenever it is saved (beyond its shape): e.g. symbols the situation universe knows. */
  saveChecks?: SaveCheck[]
  /** Records workflow events; the engine's recorder lets its listeners act in the same transaction (schedules). */
  recorder?: DomainEventRecorder
  /** Enables the trigger subscriptions of a version about to go live (onEnable); absent: triggers have none. */
  subscriptions?: SubscriptionEnabler
  /** Runs one node of a draft again with an earlier run's inputs (the editor's node test); absent: 503. */
  nodeTester?: NodeTester
}

/** A change `mutate` records: the workflow event's type and data (null: nothing changed). */
export type Change = { event: string; data?: Record<string, unknown> }

export interface WorkflowContext {
  deps: WorkflowServiceDeps
  record(tx: SqlExecutor, events: readonly DomainEvent[]): Promise<RecordedEvent[]>
  /** The caller's workflow (locked for the transaction with `lock`); 404 otherwise. */
  loadRow(db: SqlExecutor, caller: Principal, id: string, lock?: boolean): Promise<WorkflowRow>
  loadVersion(db: SqlExecutor, w: WorkflowRow, version: number): Promise<VersionRow>
  /** The workflow at the version shown: the draft when there is one, else the live one. */
  display(db: SqlExecutor, w: WorkflowRow): Promise<Workflow>
  /** The definition's shape; 400 when it does not check out. Its workflow type. */
  check(definition: Definition): string
  /** The problems the save checks find. */
  saveProblems(definition: Definition): Promise<ErrorDetail[]>
  /** The shape check, then the save checks: a definition that fails either is not saved. */
  checkForSave(definition: Definition): Promise<string>
  /** The publish guards' problems with content about to go live. */
  guardProblems(content: WorkflowContent, organizationId: string, tx: SqlExecutor): Promise<ErrorDetail[]>
  /**
   * `fundAutoSwapConfig` as API.md decides: every source's wallet is one of the organization's,
   * source ids are unique, `mode` is `on_demand` or `keep_balance` (slippageBps 0–10,000 is the
   * schema's). Stored as given; no swap venue is configured here, so none is attempted.
   */
  checkAutoSwap(db: SqlExecutor, organizationId: string, content: WorkflowContent): Promise<void>
  /** 400 naming `path` when the user is not a member of the organization. */
  ensureMember(organizationId: string, userId: string, path: string): Promise<void>
  /**
   * Runs `work` in one transaction on the locked row, records its change, publishes after commit;
   * with `ifMatch` (the tag the writer read), refuses with 412 when the workflow changed since.
   */
  mutate(
    caller: Principal,
    id: string,
    work: (tx: SqlExecutor, w: WorkflowRow) => Promise<Change | null>,
    ifMatch?: string | null,
  ): Promise<Workflow>
}

export const requireNotArchived = (w: WorkflowRow) => {
  if (w.archived_at !== null) throw conflict('the workflow is archived; unarchive it first')
}

export const requireLive = (w: WorkflowRow) => {
  requireNotArchived(w)
  if (w.live_version === null) throw conflict('the workflow has no live version; publish it first')
}

export function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

const underDefinition = (problems: readonly ErrorDetail[]) =>
  problems.map((e) => ({ ...e, path: `/definition${e.path ?? ''}` }))

export function createWorkflowContext(deps: WorkflowServiceDeps): WorkflowContext {
  const { store, clock } = deps
  const record = (tx: SqlExecutor, list: readonly DomainEvent[]) =>
    deps.recorder ? deps.recorder.record(tx, list) : recordEvents(tx, list)

  async function loadRow(db: SqlExecutor, caller: Principal, id: string, lock = false): Promise<WorkflowRow> {
    const row = lock
      ? await workflows.lockInOrganization(db, store.dialect, caller.organizationId, id)
      : await workflows.byId(db, caller.organizationId, id)
    if (!row) throw notFound('workflow')
    return row
  }

  async function loadVersion(db: SqlExecutor, w: WorkflowRow, version: number): Promise<VersionRow> {
    const v = await versions.get(db, w.id, version)
    if (!v) throw notFound(`version ${version} of workflow`)
    return v
  }

  const display = async (db: SqlExecutor, w: WorkflowRow) => toWorkflow(w, await loadVersion(db, w, displayVersion(w)))

  function check(definition: Definition): string {
    const { type, errors } = deps.checker.check(definition)
    if (errors.length > 0) throw badRequest('the workflow definition is invalid', underDefinition(errors))
    return type ?? 'manual'
  }

  const saveProblems = async (definition: Definition) =>
    (await Promise.all((deps.saveChecks ?? []).map((c) => c(definition)))).flat()

  async function checkAutoSwap(db: SqlExecutor, organizationId: string, content: WorkflowContent) {
    const swap = content.fundAutoSwapConfig
    if (!swap) return
    const problems: ErrorDetail[] = []
    if (swap.mode !== undefined && swap.mode !== 'on_demand' && swap.mode !== 'keep_balance') {
      problems.push({ path: '/fundAutoSwapConfig/mode', message: 'must be on_demand or keep_balance' })
    }
    const seen = new Set<string>()
    for (const [i, source] of (swap.sources ?? []).entries()) {
      if (seen.has(source.id))
        problems.push({ path: `/fundAutoSwapConfig/sources/${i}/id`, message: `duplicate source id ${source.id}` })
      seen.add(source.id)
      if (!(await wallets.byId(db, organizationId, source.walletId)))
        problems.push({
          path: `/fundAutoSwapConfig/sources/${i}/walletId`,
          message: `no wallet ${source.walletId} in this organization`,
        })
    }
    if (problems.length > 0) throw badRequest('fundAutoSwapConfig is invalid', problems)
  }

  return {
    deps,
    record,
    loadRow,
    loadVersion,
    display,
    check,
    saveProblems,
    checkAutoSwap,
    async checkForSave(definition) {
      const type = check(definition)
      const problems = await saveProblems(definition)
      if (problems.length > 0) throw badRequest('the workflow definition is invalid', underDefinition(problems))
      return type
    },
    guardProblems: async (content, organizationId, tx) =>
      (await Promise.all((deps.publishGuards ?? []).map((g) => g(content, organizationId, tx)))).flat(),
    async ensureMember(organizationId, userId, path) {
      if (!(await members.get(store, organizationId, userId))) {
        throw badRequest('not a member of this organization', [
          { path, message: `user ${userId} is not a member of this organization` },
        ])
      }
    },
    async mutate(caller, id, work, ifMatch) {
      const recorded = await store.write(async (tx) => {
        const w = await loadRow(tx, caller, id, true)
        if (ifMatch) await checkIfMatch(await display(tx, w), ifMatch)
        const change = await work(tx, w)
        if (!change) return { events: [] }
        const event: DomainEvent = {
          organizationId: caller.organizationId,
          workflowId: id,
          runId: null,
          seq: null,
          nodeId: null,
          type: change.event,
          data: { workflowId: id, by: actorOf(caller), ...change.data },
          at: clock.now(),
        }
        return { events: await record(tx, [event]) }
      })
      publishEvents(deps.bus, recorded.events)
      return presentedOne(store, await display(store, await loadRow(store, caller, id)))
    },
  }
}
