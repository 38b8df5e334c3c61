/** Reading workflows: checking a definition, a workflow, its draft, live and other versions, and lists of them. */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { Definition, Workflow, WorkflowStatus } from '../domain/workflow.ts'
import { type ErrorDetail, notFound } from '../errors.ts'
import { toWorkflow, versions, workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import type { WorkflowContext, WorkflowServiceDeps } from './workflow-context.ts'
import { presented, presentedOne } from './workflow-presentation.ts'

/** The reading operations of the workflow service. */
export function readOperations(deps: WorkflowServiceDeps, ctx: WorkflowContext) {
  const { store } = deps
  const { loadRow, loadVersion } = ctx

  return {
    /** The problems of a definition as a save would find them (shape, then the save checks); paths relative to it. */
    async definitionProblems(definition: Definition): Promise<ErrorDetail[]> {
      const { errors } = deps.checker.check(definition)
      if (errors.length > 0) return errors
      return ctx.saveProblems(definition)
    },

    async validate(definition: unknown) {
      const { type, errors, warnings = [] } = deps.checker.check(definition as Definition)
      const problems = errors.length === 0 ? await ctx.saveProblems(definition as Definition) : []
      const all = [...errors, ...problems]
      const listed = (list: ErrorDetail[]) => list.map((e) => ({ path: e.path ?? '', message: e.message }))
      return { valid: all.length === 0, type: type ?? '', errors: listed(all), warnings: listed(warnings) }
    },

    async get(caller: Principal, id: string): Promise<Workflow> {
      return presentedOne(store, await ctx.display(store, await loadRow(store, caller, id)))
    },

    async list(
      caller: Principal,
      page: PageRequest,
      filter: { status?: WorkflowStatus; search?: string },
    ): Promise<Page<Workflow>> {
      const rows = await workflows.list(store, caller.organizationId, page, filter)
      const items = await presented(
        store,
        await Promise.all(rows.slice(0, page.limit).map((w) => ctx.display(store, w))),
      )
      return { hasMore: rows.length > page.limit, items, limit: page.limit, offset: page.offset }
    },

    async getDraft(caller: Principal, id: string): Promise<Workflow> {
      const w = await loadRow(store, caller, id)
      if (w.draft_version === null) throw notFound('draft of workflow')
      return presentedOne(store, toWorkflow(w, await loadVersion(store, w, w.draft_version)))
    },

    async getLive(caller: Principal, id: string): Promise<Workflow> {
      const w = await loadRow(store, caller, id)
      if (w.live_version === null) throw notFound('live version of workflow')
      return presentedOne(store, toWorkflow(w, await loadVersion(store, w, w.live_version)))
    },

    async listVersions(caller: Principal, id: string, page: PageRequest): Promise<Page<Workflow>> {
      const w = await loadRow(store, caller, id)
      const rows = await versions.list(store, w.id, page)
      return toPage(
        await presented(
          store,
          rows.map((v) => toWorkflow(w, v)),
        ),
        page,
      )
    },

    async getVersion(caller: Principal, id: string, version: number): Promise<Workflow> {
      const w = await loadRow(store, caller, id)
      return presentedOne(store, toWorkflow(w, await loadVersion(store, w, version)))
    },
  }
}
