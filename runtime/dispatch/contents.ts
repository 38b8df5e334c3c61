/**
 * What admission reads of a workflow's definitions: a version's parsed content and definition
 * hash (cached while the version row is unchanged), the definition an earlier run executed (a
 * retry), and the stored definition rows, written once per hash.
 */
import { type Definition, defaultContent, type VariableDef, type WorkflowContent } from '../../core/domain/workflow.ts'
import { notFound } from '../../core/errors.ts'
import { canonicalJson } from '../../core/json.ts'
import type { DispatchRequest } from '../../core/ports/engine.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { SqlExecutor, Store } from '../../core/ports/store.ts'
import { sha256Hex } from '../../core/security/hash.ts'
import { runs } from '../../core/store/runs.ts'
import { versions, type WorkflowRow, workflows } from '../../core/store/workflows.ts'
import { BoundedMap } from '../../core/bounded-map.ts'
import { mergedVariableDefs } from '../admission-rules.ts'

/** A version's content as admission uses it. */
export interface VersionContent {
  content: WorkflowContent
  /** Its variables, the workflow's and the definition's merged (mergedVariableDefs). */
  variableDefs: VariableDef[]
  hash: string
  body: string
}

/** The workflow admitting a run, with its live version's stamp when the read brought it (Postgres). */
export interface AdmittingWorkflow {
  row: WorkflowRow
  liveStamp?: number | null
}

/** The definitions admission reads and stores, cached in this process. */
export interface VersionContents {
  /** Parsed content and definition hash of a version, cached while the version row is unchanged. */
  contentOf(tx: SqlExecutor, workflowId: string, version: number, knownStamp?: number | null): Promise<VersionContent>
  /**
   * The definition an earlier run executed, by its hash. A stored definition keeps no workflow
   * settings, so the content around it is the default one: no run control or payment applies to
   * a pinned version, which only an API run (a retry) asks for.
   */
  pinnedContent(tx: SqlExecutor, hash: string): Promise<VersionContent>
  /** Stores a definition row unless it is known to be stored. */
  storeDefinition(tx: SqlExecutor, hash: string, body: string): Promise<void>
  /** Remembers a definition as stored, once the transaction that stored it committed. */
  stored(hash: string): void
  /** The workflow admitting a run; on Postgres with its live version's stamp, saving contentOf a statement. */
  workflowOf(tx: SqlExecutor, req: DispatchRequest): Promise<AdmittingWorkflow | undefined>
}

export function createVersionContents(deps: { store: Store; clock: Clock }): VersionContents {
  const { store, clock } = deps
  const contents = new BoundedMap<string, VersionContent>(5000)
  const knownDefinitions = new Set<string>()

  async function contentOf(
    tx: SqlExecutor,
    workflowId: string,
    version: number,
    knownStamp?: number | null,
  ): Promise<VersionContent> {
    // A simple key lookup, unless the workflow's read brought it (see workflowOf).
    const stamp = knownStamp ?? (await versions.stamp(tx, workflowId, version))
    if (stamp === undefined) throw notFound('workflow version')
    const cacheKey = `${workflowId}:${version}:${stamp}`
    const cached = contents.get(cacheKey)
    if (cached) return cached
    const content = JSON.parse((await versions.content(tx, workflowId, version))!) as WorkflowContent
    const variableDefs = mergedVariableDefs(content)
    const body = canonicalJson({ definition: content.definition, variableDefs })
    const entry = { content, variableDefs, body, hash: await sha256Hex(body) }
    contents.set(cacheKey, entry)
    return entry
  }

  async function pinnedContent(tx: SqlExecutor, hash: string): Promise<VersionContent> {
    const stored = await runs.definition(tx, hash)
    if (!stored) throw notFound('definition of the run')
    const { definition, variableDefs } = JSON.parse(stored.body) as {
      definition: Definition
      variableDefs?: VariableDef[]
    }
    return { content: defaultContent(definition), variableDefs: variableDefs ?? [], hash, body: stored.body }
  }

  async function storeDefinition(tx: SqlExecutor, hash: string, body: string) {
    if (knownDefinitions.has(hash)) return
    // Remembered only once committed (see stored): a rolled-back batch takes the row with it.
    await runs.storeDefinition(tx, hash, body, clock.now())
  }

  async function workflowOf(tx: SqlExecutor, req: DispatchRequest): Promise<AdmittingWorkflow | undefined> {
    if (store.dialect !== 'postgres') {
      const row = await workflows.byId(tx, req.organizationId, req.workflowId)
      return row && { row }
    }
    const found = await workflows.withLiveStamp(tx, req.organizationId, req.workflowId)
    if (!found) return undefined
    const { live_stamp: liveStamp, ...row } = found
    return { row, liveStamp }
  }

  return {
    contentOf,
    pinnedContent,
    storeDefinition,
    stored: (hash) => void knownDefinitions.add(hash),
    workflowOf,
  }
}
