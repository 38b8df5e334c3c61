/**
 * Workflows: drafts, live versions and their lifecycle. A workflow has at most one draft and
 * one live version; the draft is the display row. Content changes go to the draft (creating
 * one from the live version when needed); publishing makes the draft live. Every change is
 * recorded as a workflow event in the journal and published on the bus after commit.
 *
 * This file keeps the contract, the reads and the operation table; creating is
 * workflow-creation.ts, editing workflow-drafts.ts, the settings edited in place
 * workflow-settings.ts, the lifecycle workflow-lifecycle.ts, and what they share (loading,
 * checks, `mutate`) workflow-context.ts.
 */
import type { Page, PageRequest } from '../domain/common.ts'
import type {
  CreateWorkflowBody,
  Definition,
  UpdateWorkflowBody,
  Visibility,
  Workflow,
  WorkflowContent,
  WorkflowStatus,
} from '../domain/workflow.ts'
import type { ErrorDetail } from '../errors.ts'
import type { NodeTestOutcome } from '../ports/node-tester.ts'
import type { SqlExecutor } from '../ports/store.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { createWorkflowContext, type WorkflowServiceDeps } from './workflow-context.ts'
import { draftOperations } from './workflow-drafts.ts'
import { nodeTestOperations } from './workflow-node-tests.ts'
import { readOperations } from './workflow-reads.ts'
import { lifecycleOperations } from './workflow-lifecycle.ts'
import { settingsOperations } from './workflow-settings.ts'

export type { PublishGuard, SaveCheck, WorkflowServiceDeps } from './workflow-context.ts'

/** The version a writer read: `If-Match` as sent (absent or empty: the write is unconditional). */
export interface WriteCondition {
  ifMatch?: string | null
}

/** The workflow service: reading, editing, publishing and archiving an organization's workflows. */
export interface WorkflowService {
  /** The problems of a definition as a save would find them (shape, then the save checks); paths relative to it. */
  definitionProblems(definition: Definition): Promise<ErrorDetail[]>
  /** `POST /v1/workflows/validate`: whether a definition would save, its type, and its problems. */
  validate(definition: unknown): Promise<{
    valid: boolean
    type: string | null
    errors: { path: string; message: string }[]
    warnings: { path: string; message: string }[]
  }>
  /** `POST /v1/workflows`: a new workflow whose first version is a draft; `alongside` writes more in the same transaction. */
  create(
    caller: Principal,
    body: CreateWorkflowBody,
    alongside?: (tx: SqlExecutor, workflowId: string) => Promise<void>,
  ): Promise<Workflow>
  /** A workflow as its display version shows it. */
  get(caller: Principal, id: string): Promise<Workflow>
  /** The organization's workflows, by status or a search, a page at a time. */
  list(
    caller: Principal,
    page: PageRequest,
    filter: { status?: WorkflowStatus; search?: string },
  ): Promise<Page<Workflow>>
  /** The draft version, or a 404 when there is none. */
  getDraft(caller: Principal, id: string): Promise<Workflow>
  /** The live version, or a 404 when there is none. */
  getLive(caller: Principal, id: string): Promise<Workflow>
  /** Every version of a workflow, a page at a time. */
  listVersions(caller: Principal, id: string, page: PageRequest): Promise<Page<Workflow>>
  /** One version of a workflow. */
  getVersion(caller: Principal, id: string, version: number): Promise<Workflow>
  /**
   * A content change: updates the draft, or creates one from the live version; identical content
   * is a no-op. With `ifMatch` (the ETag the writer read), a workflow changed since is a 412.
   */
  update(caller: Principal, id: string, body: UpdateWorkflowBody, condition?: WriteCondition): Promise<Workflow>
  /** Pauses the live version. */
  pause(caller: Principal, id: string): Promise<Workflow>
  /** Resumes a paused live version. */
  resume(caller: Principal, id: string): Promise<Workflow>
  /** Sets how many runs the live version has left. */
  refill(caller: Principal, id: string, remainRuns: number): Promise<Workflow>
  /** Copies an earlier version into a new draft (replacing an unpublished draft). */
  rollback(caller: Principal, id: string, version: number): Promise<Workflow>
  /** Drops the draft, the live version becoming the display row again. */
  discardDraft(caller: Principal, id: string): Promise<Workflow>
  /** Gives the workflow to another member of the organization. */
  setOwner(caller: Principal, id: string, ownerUserId: string): Promise<{ id: string; ownerUserId: string }>
  /** Visibility is a setting, not content: it applies to the draft and the live version at once. */
  setVisibility(caller: Principal, id: string, visibility: Visibility): Promise<Workflow>
  /** Comments, node positions and sticky notes: edited on the display row without a new version. */
  patchUiMetadata(
    caller: Principal,
    id: string,
    patch: Partial<WorkflowContent['uiMetadata']>,
    condition?: WriteCondition,
  ): Promise<Workflow>
  /** Makes the draft the live version. */
  publish(caller: Principal, id: string): Promise<Workflow>
  /** Archives a workflow: it no longer runs. */
  archive(caller: Principal, id: string): Promise<Workflow>
  /** Brings an archived workflow back. */
  unarchive(caller: Principal, id: string): Promise<Workflow>
  /** Runs one node of the draft again with the inputs it had in an earlier run of the workflow; that run stays as it was. */
  testNode(caller: Principal, id: string, nodeId: string, runId: string): Promise<NodeTestOutcome>
}

export function createWorkflowService(deps: WorkflowServiceDeps): WorkflowService {
  const ctx = createWorkflowContext(deps)
  return guarded<WorkflowService>(
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
      testNode: ['workflow:execute'],
    },
    {
      ...readOperations(deps, ctx),
      ...draftOperations(ctx),
      ...lifecycleOperations(ctx),
      ...settingsOperations(ctx),
      ...nodeTestOperations(ctx),
    },
  )
}
