/**
 * What an admission checks and fills in besides the run itself: the trigger node a run starts
 * from, an API run's payload against the workflow's input schema, the public-run limits of a
 * caller, the variables' first values, and when a workflow was last triggered.
 */
import type { Definition, VariableDef, WorkflowContent } from '../core/domain/workflow.ts'
import { badRequest, tooManyRequests } from '../core/errors.ts'
import type { SqlExecutor, Store } from '../core/ports/store.ts'
import { workflowVariables } from '../core/store/run-side.ts'
import { publicRunUsage } from '../core/store/runs.ts'
import { workflows } from '../core/store/workflows.ts'
import { triggerIdsOf } from './engine/plan.ts'

/**
 * `lastTriggeredAt` of workflows without a cooldown: kept in memory and written once a second
 * (never moving backwards), instead of one write on the hot workflow row per run.
 */
export function createTriggerTimes(store: Store) {
  const pending = new Map<string, number>()
  let timer: ReturnType<typeof setTimeout> | null = null
  const flush = async () => {
    timer = null
    const entries = [...pending]
    pending.clear()
    await store
      .write(async (tx) => {
        for (const [id, at] of entries) {
          await workflows.noteTriggered(tx, id, at)
        }
      })
      .catch(() => {})
  }
  return {
    note(workflowId: string, at: number) {
      pending.set(workflowId, Math.max(at, pending.get(workflowId) ?? 0))
      if (!timer) {
        timer = setTimeout(flush, 1000)
        ;(timer as { unref?: () => void }).unref?.()
      }
    },
  }
}

export function mergedVariableDefs(content: WorkflowContent): VariableDef[] {
  const byName = new Map<string, VariableDef>()
  for (const v of content.variableDefs ?? []) byName.set(v.name, v)
  for (const v of content.definition.variableDefs ?? []) byName.set(v.name, v)
  return [...byName.values()]
}

export async function initialVars(
  tx: SqlExecutor,
  workflowId: string,
  defs: readonly VariableDef[],
): Promise<Record<string, unknown>> {
  const vars: Record<string, unknown> = {}
  for (const v of defs) vars[v.name] = v.default ?? defaultFor(v.type)
  if (defs.some((v) => v.lifetime === 'persist')) {
    const stored = await workflowVariables.of(tx, workflowId)
    for (const row of stored) {
      if (defs.find((v) => v.name === row.name)?.lifetime === 'persist') vars[row.name] = JSON.parse(row.value)
    }
  }
  return vars
}

function defaultFor(type: VariableDef['type']): unknown {
  switch (type) {
    case 'number':
      return 0
    case 'text':
      return ''
    case 'boolean':
      return false
    case 'list':
      return []
    default:
      return {}
  }
}

/** The trigger node a run starts from: one whose type matches the event, else the first. */
export function pickTrigger(definition: Definition, eventType: string): string {
  const ids = triggerIdsOf(definition)
  return (
    ids.find((id) => definition.nodes[id]?.type === eventType) ??
    ids.find((id) => definition.nodes[id]?.type === 'manual') ??
    ids[0]
  )
}

const TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => !!v && typeof v === 'object' && !Array.isArray(v),
  array: (v) => Array.isArray(v),
}

/** An API run's payload against the definition's inputSchema: missing required keys and wrong types are a 400. */
export function checkInput(definition: Definition, body: unknown) {
  const schema = definition.inputSchema ?? []
  if (schema.length === 0) return
  const payload = (body ?? {}) as Record<string, unknown>
  const problems = []
  for (const field of schema) {
    const value = payload[field.key]
    if (value === undefined || value === null) {
      if (field.required)
        problems.push({ path: `/payload/${field.key}`, message: "is required by the workflow's inputSchema" })
    } else if (!TYPE_CHECKS[field.type]?.(value)) {
      problems.push({ path: `/payload/${field.key}`, message: `must be of type ${field.type}` })
    }
  }
  if (problems.length) throw badRequest("the payload does not match the workflow's inputSchema", problems)
}

export async function checkPublicLimits(
  tx: SqlExecutor,
  workflowId: string,
  content: WorkflowContent,
  caller: string,
  now: number,
) {
  const day = new Date(now).toISOString().slice(0, 10)
  const usage = await publicRunUsage.get(tx, workflowId, caller, day)
  if (usage && content.publicRunCooldownSeconds > 0 && now - usage.last_at < content.publicRunCooldownSeconds * 1000) {
    throw tooManyRequests(
      'this workflow was run from your address moments ago; wait for its cooldown',
      Math.ceil((usage.last_at + content.publicRunCooldownSeconds * 1000 - now) / 1000),
    )
  }
  if (usage && content.publicRunDailyLimit !== null && usage.count >= content.publicRunDailyLimit) {
    throw tooManyRequests('the daily limit of public runs from your address is reached', 3600)
  }
  await publicRunUsage.count(tx, workflowId, caller, day, now)
}
