/**
 * Workflows: drafts, live versions and their lifecycle. A workflow has at most one draft and
 * one live version; the draft is the display row. Content changes go to the draft (creating
 * one from the live version when needed); publishing makes the draft live. Every change is
 * recorded as a workflow event in the journal and published on the bus after commit.
 */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import {
  type CreateWorkflowBody, type Definition, defaultContent, normalizeContent, type UpdateWorkflowBody,
  type Visibility, type Workflow, type WorkflowContent, type WorkflowStatus,
} from '../domain/workflow.ts'
import { badRequest, conflict, type ErrorDetail, notFound } from '../errors.ts'
import { type DomainEvent, publishEvents, type RecordedEvent, recordEvents } from '../events.ts'
import { randomToken } from '../ids.ts'
import { canonicalJson } from '../json.ts'
import type { Bus } from '../ports/bus.ts'
import type { Clock } from '../ports/clock.ts'
import type { DefinitionChecker } from '../ports/engine.ts'
import type { Ids } from '../ports/ids.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { members } from '../store/members.ts'
import { wallets } from '../store/wallets.ts'
import { displayVersion, toWorkflow, type VersionRow, versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'

/**
 * A check that may refuse a publish (the schedule plugin's minimum interval, for one). It runs
 * inside the publish transaction: it may read through `tx`, and must not do anything else.
 */
export type PublishGuard = (content: WorkflowContent, organizationId: string, tx: SqlExecutor) => ErrorDetail[] | Promise<ErrorDetail[]>
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
  recorder?: { record(tx: SqlExecutor, events: readonly DomainEvent[]): Promise<RecordedEvent[]> }
}

type Change = { event: string; data?: Record<string, unknown> }

export function createWorkflowService(deps: WorkflowServiceDeps) {
  const { store, clock, ids } = deps
  const record = (tx: SqlExecutor, list: readonly DomainEvent[]) => (deps.recorder ? deps.recorder.record(tx, list) : recordEvents(tx, list))

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

  async function display(db: SqlExecutor, w: WorkflowRow): Promise<Workflow> {
    return toWorkflow(w, await loadVersion(db, w, displayVersion(w)))
  }

  function check(definition: Definition): string {
    const { type, errors } = deps.checker.check(definition)
    if (errors.length > 0) {
      throw badRequest('the workflow definition is invalid', errors.map((e) => ({ ...e, path: `/definition${e.path ?? ''}` })))
    }
    return type ?? 'manual'
  }

  async function saveProblems(definition: Definition): Promise<ErrorDetail[]> {
    return (await Promise.all((deps.saveChecks ?? []).map((c) => c(definition)))).flat()
  }

  /** The shape check, then the save checks: a definition that fails either is not saved. */
  async function checkForSave(definition: Definition): Promise<string> {
    const type = check(definition)
    const problems = await saveProblems(definition)
    if (problems.length > 0) {
      throw badRequest('the workflow definition is invalid', problems.map((e) => ({ ...e, path: `/definition${e.path ?? ''}` })))
    }
    return type
  }

  /** Runs `work` in one transaction on the locked row, records its change, publishes after commit. */
  async function mutate(caller: Principal, id: string, work: (tx: SqlExecutor, w: WorkflowRow) => Promise<Change | null>): Promise<Workflow> {
    const recorded = await store.write(async (tx) => {
      const w = await loadRow(tx, caller, id, true)
      const change = await work(tx, w)
      if (!change) return { events: [] }
      const event: DomainEvent = {
        organizationId: caller.organizationId, workflowId: id, runId: null, seq: null, nodeId: null,
        type: change.event, data: { workflowId: id, by: actorOf(caller), ...change.data }, at: clock.now(),
      }
      return { events: await record(tx, [event]) }
    })
    publishEvents(deps.bus, recorded.events)
    const w = await loadRow(store, caller, id)
    return display(store, w)
  }

  const requireNotArchived = (w: WorkflowRow) => {
    if (w.archived_at !== null) throw conflict('the workflow is archived; unarchive it first')
  }
  const requireLive = (w: WorkflowRow) => {
    requireNotArchived(w)
    if (w.live_version === null) throw conflict('the workflow has no live version; publish it first')
  }

  /**
   * `fundAutoSwapConfig` as API.md decides: every source's wallet is one of the organization's,
   * source ids are unique, `mode` is `on_demand` or `keep_balance` (slippageBps 0–10,000 is the
   * schema's). Stored as given; no swap venue is configured here, so none is attempted.
   */
  async function checkAutoSwap(db: SqlExecutor, organizationId: string, content: WorkflowContent) {
    const swap = content.fundAutoSwapConfig
    if (!swap) return
    const problems: ErrorDetail[] = []
    if (swap.mode !== undefined && swap.mode !== 'on_demand' && swap.mode !== 'keep_balance') {
      problems.push({ path: '/fundAutoSwapConfig/mode', message: 'must be on_demand or keep_balance' })
    }
    const seen = new Set<string>()
    for (const [i, source] of (swap.sources ?? []).entries()) {
      if (seen.has(source.id)) problems.push({ path: `/fundAutoSwapConfig/sources/${i}/id`, message: `duplicate source id ${source.id}` })
      seen.add(source.id)
      if (!(await wallets.byId(db, organizationId, source.walletId))) problems.push({ path: `/fundAutoSwapConfig/sources/${i}/walletId`, message: `no wallet ${source.walletId} in this organization` })
    }
    if (problems.length > 0) throw badRequest('fundAutoSwapConfig is invalid', problems)
  }

  async function ensureMember(organizationId: string, userId: string, path: string) {
    if (!(await members.get(store, organizationId, userId))) {
      throw badRequest('not a member of this organization', [{ path, message: `user ${userId} is not a member of this organization` }])
    }
  }

  return {
    /** The problems of a definition as a save would find them (shape, then the save checks); paths relative to it. */
    async definitionProblems(definition: Definition): Promise<ErrorDetail[]> {
      const { errors } = deps.checker.check(definition)
      if (errors.length > 0) return errors
      return saveProblems(definition)
    },

    /** `alongside` writes more in the same transaction (a fork's prop values, its app). */
    async create(caller: Principal, body: CreateWorkflowBody, alongside?: (tx: SqlExecutor, workflowId: string) => Promise<void>): Promise<Workflow> {
      const type = await checkForSave(body.definition)
      const { ownerUserId, ...fields } = body
      const content = normalizeContent({ ...defaultContent(body.definition), ...stripUndefined(fields) })
      if (ownerUserId) await ensureMember(caller.organizationId, ownerUserId, '/ownerUserId')
      await checkAutoSwap(store, caller.organizationId, content)
      const id = ids.next('wf')
      const at = clock.now()
      const by = actorOf(caller)
      const recorded = await store.write(async (tx) => {
        await workflows.insert(tx, {
          id, organization_id: caller.organizationId, owner_user_id: ownerUserId ?? caller.userId, trigger_secret: randomToken(32),
          name: content.name, type, latest_version: 1, draft_version: 1, live_version: null, live_status: null,
          paused_reason: null, archived_at: null, remain_runs: null, last_triggered_at: null, consecutive_failures: 0,
          created_at: at, created_by: by, updated_at: at, updated_by: by,
        })
        await versions.insert(tx, {
          workflow_id: id, version: 1, organization_id: caller.organizationId, content: JSON.stringify(content), type,
          version_created_by: by, created_at: at, updated_at: at, updated_by: by, published_at: null,
        })
        await alongside?.(tx, id)
        return record(tx, [{
          organizationId: caller.organizationId, workflowId: id, runId: null, seq: null, nodeId: null,
          type: 'workflow.created', data: { workflowId: id, by, version: 1 }, at,
        }])
      })
      publishEvents(deps.bus, recorded)
      return display(store, (await workflows.byId(store, caller.organizationId, id))!)
    },

    async get(caller: Principal, id: string): Promise<Workflow> {
      return display(store, await loadRow(store, caller, id))
    },

    async list(caller: Principal, page: PageRequest, filter: { status?: WorkflowStatus; search?: string }): Promise<Page<Workflow>> {
      const rows = await workflows.list(store, caller.organizationId, page, filter)
      const items = await Promise.all(rows.slice(0, page.limit).map((w) => display(store, w)))
      return { hasMore: rows.length > page.limit, items, limit: page.limit, offset: page.offset }
    },

    async getDraft(caller: Principal, id: string): Promise<Workflow> {
      const w = await loadRow(store, caller, id)
      if (w.draft_version === null) throw notFound('draft of workflow')
      return toWorkflow(w, await loadVersion(store, w, w.draft_version))
    },

    async getLive(caller: Principal, id: string): Promise<Workflow> {
      const w = await loadRow(store, caller, id)
      if (w.live_version === null) throw notFound('live version of workflow')
      return toWorkflow(w, await loadVersion(store, w, w.live_version))
    },

    async listVersions(caller: Principal, id: string, page: PageRequest): Promise<Page<Workflow>> {
      const w = await loadRow(store, caller, id)
      return toPage((await versions.list(store, w.id, page)).map((v) => toWorkflow(w, v)), page)
    },

    async getVersion(caller: Principal, id: string, version: number): Promise<Workflow> {
      const w = await loadRow(store, caller, id)
      return toWorkflow(w, await loadVersion(store, w, version))
    },

    /** A content change: updates the draft, or creates one from the live version; identical content is a no-op. */
    async update(caller: Principal, id: string, body: UpdateWorkflowBody): Promise<Workflow> {
      const type = body.definition ? await checkForSave(body.definition) : null
      return mutate(caller, id, async (tx, w) => {
        requireNotArchived(w)
        const base = await loadVersion(tx, w, displayVersion(w))
        const current = JSON.parse(base.content) as WorkflowContent
        const next = normalizeContent({ ...current, ...stripUndefined(body) })
        if (canonicalJson(next) === canonicalJson(current)) return null
        if (body.fundAutoSwapConfig !== undefined) await checkAutoSwap(tx, w.organization_id, next)
        const at = clock.now()
        const by = actorOf(caller)
        const nextType = type ?? base.type
        if (w.draft_version !== null) {
          await versions.updateContent(tx, w.id, w.draft_version, JSON.stringify(next), nextType, at, by)
          await workflows.update(tx, w.id, { name: next.name, type: nextType, updated_at: at, updated_by: by })
          return { event: 'workflow.updated', data: { version: w.draft_version } }
        }
        const version = w.latest_version + 1
        await versions.insert(tx, {
          workflow_id: w.id, version, organization_id: w.organization_id, content: JSON.stringify(next), type: nextType,
          version_created_by: by, created_at: at, updated_at: at, updated_by: by, published_at: null,
        })
        await workflows.update(tx, w.id, { name: next.name, type: nextType, latest_version: version, draft_version: version, updated_at: at, updated_by: by })
        return { event: 'workflow.updated', data: { version, draftCreated: true } }
      })
    },

    publish(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireNotArchived(w)
        if (w.draft_version === null) throw conflict('there is no draft to publish')
        const draft = await loadVersion(tx, w, w.draft_version)
        const content = JSON.parse(draft.content) as WorkflowContent
        const type = check(content.definition)
        const guardErrors = (await Promise.all((deps.publishGuards ?? []).map((g) => g(content, w.organization_id, tx)))).flat()
        if (guardErrors.length > 0) throw badRequest('the workflow cannot be published', guardErrors)
        const previous = w.live_version !== null ? (JSON.parse((await loadVersion(tx, w, w.live_version)).content) as WorkflowContent) : null
        const remainRuns = content.maxRuns === null ? null : previous?.maxRuns === content.maxRuns && w.remain_runs !== null ? w.remain_runs : content.maxRuns
        const at = clock.now()
        await versions.markPublished(tx, w.id, draft.version, at)
        await workflows.update(tx, w.id, {
          live_version: draft.version, draft_version: null, live_status: remainRuns === 0 ? 'paused' : 'active',
          paused_reason: remainRuns === 0 ? 'max_runs_exhausted' : null, remain_runs: remainRuns, consecutive_failures: 0,
          name: content.name, type, updated_at: at, updated_by: actorOf(caller),
        })
        return { event: 'workflow.published', data: { version: draft.version, previousVersion: w.live_version } }
      })
    },

    pause(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireLive(w)
        if (w.live_status === 'paused') return null
        await workflows.update(tx, w.id, { live_status: 'paused', paused_reason: null, updated_at: clock.now(), updated_by: actorOf(caller) })
        return { event: 'workflow.paused', data: { version: w.live_version, reason: null } }
      })
    },

    resume(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireLive(w)
        if (w.live_status === 'active') return null
        if (w.remain_runs === 0) throw conflict('no runs remain; refill the workflow to resume it')
        // Paused because the chat platform revoked its connector: its connectors are checked again first.
        if (w.paused_reason === 'invalid_chat') {
          const live = JSON.parse((await loadVersion(tx, w, w.live_version!)).content) as WorkflowContent
          const guardErrors = (await Promise.all((deps.publishGuards ?? []).map((g) => g(live, w.organization_id, tx)))).flat()
          if (guardErrors.length > 0) throw badRequest('the workflow cannot resume: its connectors do not check out', guardErrors)
        }
        await workflows.update(tx, w.id, { live_status: 'active', paused_reason: null, consecutive_failures: 0, updated_at: clock.now(), updated_by: actorOf(caller) })
        return { event: 'workflow.resumed', data: { version: w.live_version } }
      })
    },

    refill(caller: Principal, id: string, remainRuns: number): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireNotArchived(w)
        const reactivate = w.live_status === 'paused' && w.paused_reason === 'max_runs_exhausted'
        await workflows.update(tx, w.id, {
          remain_runs: remainRuns, ...(reactivate ? { live_status: 'active' as const, paused_reason: null } : {}),
          updated_at: clock.now(), updated_by: actorOf(caller),
        })
        return { event: 'workflow.refilled', data: { remainRuns, resumed: reactivate } }
      })
    },

    /** Copies an earlier version into a new draft (replacing an unpublished draft). */
    rollback(caller: Principal, id: string, version: number): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireNotArchived(w)
        const source = await loadVersion(tx, w, version)
        const content = JSON.parse(source.content) as WorkflowContent
        const type = check(content.definition)
        if (w.draft_version !== null) await versions.remove(tx, w.id, w.draft_version)
        const at = clock.now()
        const by = actorOf(caller)
        const next = w.latest_version + 1
        await versions.insert(tx, {
          workflow_id: w.id, version: next, organization_id: w.organization_id, content: source.content, type,
          version_created_by: by, created_at: at, updated_at: at, updated_by: by, published_at: null,
        })
        await workflows.update(tx, w.id, { latest_version: next, draft_version: next, name: content.name, type, updated_at: at, updated_by: by })
        return { event: 'workflow.updated', data: { version: next, rolledBackTo: version } }
      })
    },

    discardDraft(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        if (w.draft_version === null) throw notFound('draft of workflow')
        if (w.live_version === null) throw conflict('the draft is the only version; archive the workflow instead')
        await versions.remove(tx, w.id, w.draft_version)
        const live = JSON.parse((await loadVersion(tx, w, w.live_version)).content) as WorkflowContent
        await workflows.update(tx, w.id, { draft_version: null, name: live.name, updated_at: clock.now(), updated_by: actorOf(caller) })
        return { event: 'workflow.updated', data: { draftDiscarded: w.draft_version } }
      })
    },

    archive(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        if (w.archived_at !== null) return null
        await workflows.update(tx, w.id, { archived_at: clock.now(), updated_at: clock.now(), updated_by: actorOf(caller) })
        return { event: 'workflow.archived' }
      })
    },

    unarchive(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        if (w.archived_at === null) return null
        await workflows.update(tx, w.id, { archived_at: null, updated_at: clock.now(), updated_by: actorOf(caller) })
        return { event: 'workflow.unarchived' }
      })
    },

    async setOwner(caller: Principal, id: string, ownerUserId: string): Promise<{ id: string; ownerUserId: string }> {
      await loadRow(store, caller, id)
      await ensureMember(caller.organizationId, ownerUserId, '/ownerUserId')
      await mutate(caller, id, async (tx, w) => {
        if (w.owner_user_id === ownerUserId) return null
        await workflows.update(tx, w.id, { owner_user_id: ownerUserId, updated_at: clock.now(), updated_by: actorOf(caller) })
        return { event: 'workflow.owner_changed', data: { ownerUserId, previousOwnerUserId: w.owner_user_id } }
      })
      return { id, ownerUserId }
    },

    /** Visibility is a setting, not content: it applies to the draft and the live version at once. */
    setVisibility(caller: Principal, id: string, visibility: Visibility): Promise<Workflow> {
      return patchInPlace(caller, id, (c) => ({ ...c, visibility }), 'workflow.visibility_changed', { visibility })
    },

    /** Comments, node positions and sticky notes: edited on the display row without a new version. */
    patchUiMetadata(caller: Principal, id: string, patch: Partial<WorkflowContent['uiMetadata']>): Promise<Workflow> {
      return patchInPlace(caller, id, (c) => ({ ...c, uiMetadata: { ...c.uiMetadata, ...stripUndefined(patch) } }), 'workflow.ui_metadata_changed', {}, true)
    },

    async validate(definition: unknown) {
      const { type, errors } = deps.checker.check(definition as Definition)
      const problems = errors.length === 0 ? await saveProblems(definition as Definition) : []
      const all = [...errors, ...problems]
      return { valid: all.length === 0, type, errors: all.map((e) => ({ path: e.path ?? '', message: e.message })) }
    },
  }

  function patchInPlace(caller: Principal, id: string, edit: (c: WorkflowContent) => WorkflowContent, event: string, data: Record<string, unknown>, displayOnly = false) {
    return mutate(caller, id, async (tx, w) => {
      requireNotArchived(w)
      const targets = displayOnly ? [displayVersion(w)] : [...new Set([w.draft_version, w.live_version, displayVersion(w)].filter((v): v is number => v !== null))]
      let changed = false
      for (const version of targets) {
        const v = await loadVersion(tx, w, version)
        const current = JSON.parse(v.content) as WorkflowContent
        const next = edit(current)
        if (canonicalJson(next) === canonicalJson(current)) continue
        await versions.updateContent(tx, w.id, version, JSON.stringify(next), v.type, clock.now(), actorOf(caller))
        changed = true
      }
      return changed ? { event, data } : null
    })
  }
}

export type WorkflowService = ReturnType<typeof createWorkflowService>

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
