/** Reading workflows: checking a definition, a workflow, its draft, live and other versions, and lists of them. */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { Definition, Workflow, WorkflowStatus } from '../domain/workflow.ts'
import { type ErrorDetail, notFound } from '../errors.ts'
import { toWorkflow, versions, workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import type { WorkflowContext, WorkflowServiceDeps } from './workflow-context.ts'

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
}
