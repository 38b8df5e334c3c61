/**
 * Workflows: drafts, live versions and their lifecycle. A workflow has at most one draft and
 * one live version; the draft is the display row. Content changes go to the draft (creating
 * one from the live version when needed); publishing makes the draft live. Every change is
 * recorded as a workflow event in the journal and published on the bus after commit.
 *
 * This file keeps the reads and the operation table; editing is workflow-drafts.ts, the
 * lifecycle workflow-lifecycle.ts, and what they share (loading, checks, `mutate`)
 * workflow-context.ts.
 */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { Definition, Workflow, WorkflowStatus } from '../domain/workflow.ts'
import { notFound, type ErrorDetail } from '../errors.ts'
import { toWorkflow, versions, workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { createWorkflowContext, type WorkflowServiceDeps } from './workflow-context.ts'
import { draftOperations } from './workflow-drafts.ts'
import { lifecycleOperations } from './workflow-lifecycle.ts'

export type { PublishGuard, SaveCheck, WorkflowServiceDeps } from './workflow-context.ts'

export function createWorkflowService(deps: WorkflowServiceDeps) {
  const { store } = deps
  const ctx = createWorkflowContext(deps)
  const { loadRow, loadVersion } = ctx

  const reading = {
    /** The problems of a definition as a save would find them (shape, then the save checks); paths relative to it. */
    async definitionProblems(definition: Definition): Promise<ErrorDetail[]> {
      const { errors } = deps.checker.check(definition)
      if (errors.length > 0) return errors
      return ctx.saveProblems(definition)
    },

    async validate(definition: unknown) {
      const { type, errors } = deps.checker.check(definition as Definition)
      const problems = errors.length === 0 ? await ctx.saveProblems(definition as Definition) : []
      const all = [...errors, ...problems]
      return { valid: all.length === 0, type, errors: all.map((e) => ({ path: e.path ?? '', message: e.message })) }
    },

    async get(caller: Principal, id: string): Promise<Workflow> {
      return ctx.display(store, await loadRow(store, caller, id))
    },

    async list(
      caller: Principal,
      page: PageRequest,
      filter: { status?: WorkflowStatus; search?: string },
    ): Promise<Page<Workflow>> {
      const rows = await workflows.list(store, caller.organizationId, page, filter)
      const items = await Promise.all(rows.slice(0, page.limit).map((w) => ctx.display(store, w)))
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
      return toPage(
        (await versions.list(store, w.id, page)).map((v) => toWorkflow(w, v)),
        page,
      )
    },

    async getVersion(caller: Principal, id: string, version: number): Promise<Workflow> {
      const w = await loadRow(store, caller, id)
      return toWorkflow(w, await loadVersion(store, w, version))
    },
  }

  return guarded(
    'workflows',
    {
      definitionProblems: null,
      validate: null,
      create: ['workflow:create'],
      get: ['workflow:read'],
      list: ['workflow:read'],
      getDraft: ['workflow:read'],
      getLive: ['workflow:read'],
      listVersions: ['workflow:read'],
      getVersion: ['workflow:read'],
      update: ['workflow:update'],
      pause: ['workflow:update'],
      resume: ['workflow:update'],
      refill: ['workflow:update'],
      rollback: ['workflow:update'],
      discardDraft: ['workflow:update'],
      setOwner: ['workflow:update'],
      setVisibility: ['workflow:update'],
      patchUiMetadata: ['workflow:update'],
      publish: ['workflow:publish'],
      archive: ['workflow:delete'],
      unarchive: ['workflow:delete'],
    },
    {
      ...reading,
      ...draftOperations(ctx),
      ...lifecycleOperations(ctx),
    },
  )
}

export type WorkflowService = ReturnType<typeof createWorkflowService>
