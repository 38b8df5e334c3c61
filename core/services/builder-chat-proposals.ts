/** Applying a proposal of the builder chat's model to the workflow's draft, as the person chatting. */
import type { Definition } from '../domain/workflow.ts'
import type { ErrorDetail } from '../errors.ts'
import type { Principal } from './auth.ts'
import type { BuilderChatDeps } from './builder-chat.ts'
import { workflowEtag } from './workflow-etag.ts'

/** An accepted proposal: the workflow it went to, the draft's new version, and the definition. */
export interface AppliedProposal {
  workflowId: string
  version: number
  definition: Definition
  /** The draft's ETag after the proposal: what the next proposal of the same turn must match. */
  etag: string
}

/**
 * Applies an accepted proposal to the draft (creating the workflow when there is none). `ifMatch`
 * is the ETag of the draft the model was shown: a draft changed since is refused with 412, as
 * any other writer's save is.
 */
export async function applyProposal(
  deps: Pick<BuilderChatDeps, 'workflows'>,
  caller: Principal,
  workflowId: string | null,
  args: Record<string, unknown>,
  ifMatch?: string | null,
): Promise<AppliedProposal | { problems: ErrorDetail[] }> {
  const definition = args.definition as Definition
  if (!definition || typeof definition !== 'object') return { problems: [{ path: '/definition', message: 'required' }] }
  const problems = await deps.workflows.definitionProblems(definition)
  if (problems.length > 0) return { problems }
  const aiName = typeof args.name === 'string' ? args.name.slice(0, 200) : ''
  const aiDescription = typeof args.description === 'string' ? args.description.slice(0, 5000) : ''
  if (!workflowId) {
    const created = await deps.workflows.create(caller, {
      definition,
      aiName,
      aiDescription,
      name: aiName || 'Untitled workflow',
      description: aiDescription,
    })
    return { workflowId: created.id, version: created.version, definition, etag: await workflowEtag(created) }
  }
  // Read and changed as the caller: a proposal never does more than the person chatting may.
  const current = await deps.workflows.get(caller, workflowId)
  const updated = await deps.workflows.update(
    caller,
    workflowId,
    {
      definition,
      aiName,
      aiDescription,
      // What a person named themselves stays theirs.
      ...(current.nameManuallySet || !aiName ? {} : { name: aiName }),
      ...(current.descManuallySet || !aiDescription ? {} : { description: aiDescription }),
    },
    { ifMatch },
  )
  return { workflowId, version: updated.version, definition, etag: await workflowEtag(updated) }
}
