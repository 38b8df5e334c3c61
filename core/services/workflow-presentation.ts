/**
 * What the workflow service adds to a workflow it answers, beyond its stored content: the
 * author's name, and the pinned samples that no longer fit their trigger (a trigger removed, or
 * its input schema changed since the sample was pinned), so that test data is flagged, not trusted.
 */
import type { Definition, Workflow } from '../domain/workflow.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { withAuthorNames } from './workflow-authors.ts'

type Problem = { path: string; message: string }

const TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  object: (v) => !!v && typeof v === 'object' && !Array.isArray(v),
  array: (v) => Array.isArray(v),
}

/** The trigger nodes of a definition: those it names, else its `root`. */
export function triggerNodeIdsOf(definition: Definition): string[] {
  return definition.triggerNodeIds ?? (definition.nodes.root ? ['root'] : [])
}

/** A pinned sample against the definition's input schema, as an API run's payload is checked. */
function inputProblems(definition: Definition, nodeId: string, payload: unknown): Problem[] {
  const body = (payload ?? {}) as Record<string, unknown>
  const problems: Problem[] = []
  for (const field of definition.inputSchema ?? []) {
    const path = `/pinnedData/${nodeId}/${field.key}`
    const value = typeof body === 'object' ? body[field.key] : undefined
    if (value === undefined || value === null) {
      if (field.required) problems.push({ path, message: "is required by the workflow's inputSchema" })
    } else if (!TYPE_CHECKS[field.type]?.(value)) {
      problems.push({ path, message: `must be of type ${field.type}` })
    }
  }
  return problems
}

/** The pinned samples that no longer fit: each names its path under `/pinnedData`. */
export function pinnedDataProblems(w: Pick<Workflow, 'definition' | 'pinnedData'>): Problem[] {
  const triggers = new Set(triggerNodeIdsOf(w.definition))
  const problems: Problem[] = []
  for (const [nodeId, payload] of Object.entries(w.pinnedData ?? {})) {
    if (!triggers.has(nodeId)) {
      problems.push({ path: `/pinnedData/${nodeId}`, message: `${nodeId} is no longer a trigger of this workflow` })
      continue
    }
    if (w.definition.nodes[nodeId]?.type === 'manual') problems.push(...inputProblems(w.definition, nodeId, payload))
  }
  return problems
}

/** Workflows as answered: the author's name, and the pinned samples' problems when there are any. */
export async function presented(db: SqlExecutor, list: Workflow[]): Promise<Workflow[]> {
  return (await withAuthorNames(db, list)).map((w) => {
    const problems = pinnedDataProblems(w)
    return problems.length > 0 ? { ...w, pinnedDataProblems: problems } : w
  })
}

/** One workflow as answered. */
export const presentedOne = async (db: SqlExecutor, w: Workflow) => (await presented(db, [w]))[0]!
