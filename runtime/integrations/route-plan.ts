/**
 * What an integration event may do, decided before the routing transaction from committed
 * rows: the event body is checked against its trigger's result schema, then the runs waiting
 * for the type (or the run the event names) are matched with `matchWait`, and the live trigger
 * nodes of the type (or of the workflow the event names) with `matchTrigger`. Plugin matchers
 * are pure, so they run here, outside the transaction; the transaction only claims what was
 * matched. Nothing here writes.
 */
import { runWaits } from '../../core/store/run-side.ts'
import '../../core/plugin/formats.ts'
import type { TObject, TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import type { Logger } from '../../core/ports/logger.ts'
import type { RoutedEvent, TriggerEvent } from '../../core/ports/engine.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { matchTrigger, matchWait } from '../../core/plugin/matching.ts'
import type { AnyTrigger, Registry } from '../../core/plugin/registry.ts'
import { type LiveTriggerRow, liveTriggers } from '../../core/store/live-triggers.ts'

export interface WaitRow {
  id: string
  organization_id: string
  workflow_id: string
  run_id: string
  node_id: string
  node_key: string
  trigger_type: string | null
  match: string | null
  expires_at: number | null
}

export interface Problem {
  path: string
  message: string
}

export interface RoutePlan {
  readonly waits: readonly WaitRow[]
  readonly triggers: readonly LiveTriggerRow[]
  /** Why nothing will happen, when that is known before the transaction. */
  readonly reason?: string
  readonly problems?: readonly Problem[]
}

export function createRoutePlanner(deps: { db: SqlExecutor; registry: Registry; logger: Logger }) {
  const checks = new WeakMap<TSchema, TypeCheck<TSchema>>()

  /** Where the body breaks the trigger's result schema (its `body` part when it is a TriggerEvent). */
  function problemsOf(trigger: AnyTrigger, body: unknown): Problem[] {
    const schema = ((trigger.result as TObject).properties?.body as TSchema | undefined) ?? trigger.result
    let check = checks.get(schema)
    if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)))
    if (check.Check(body)) return []
    return [...check.Errors(body)].slice(0, 10).map((e) => ({ path: e.path || '/', message: e.message }))
  }

  function waitMatches(trigger: AnyTrigger, wait: WaitRow, event: TriggerEvent, now: number): boolean {
    if (wait.expires_at !== null && wait.expires_at <= now) return false
    const outcome = matchWait(trigger, wait.match ? JSON.parse(wait.match) : null, event)
    if (outcome.error) deps.logger.warn('a wait matcher failed', { runId: wait.run_id, error: outcome.error })
    return outcome.matched
  }

  function triggerMatches(
    trigger: AnyTrigger,
    row: LiveTriggerRow,
    event: TriggerEvent,
    connectorId: string | null,
  ): boolean {
    if (row.connector_id && connectorId && row.connector_id !== connectorId) return false
    const config = Value.Default(trigger.payload, JSON.parse(row.config)) as Record<string, unknown>
    const outcome = matchTrigger(trigger, config, event)
    if (outcome.error)
      deps.logger.warn('a trigger matcher failed', { workflowId: row.workflow_id, error: outcome.error })
    return outcome.matched
  }

  /** Waiting nodes of the named run that wait for this type (or for anything: a plain wait). */
  async function targetRun(
    trigger: AnyTrigger,
    event: RoutedEvent,
    triggerEvent: TriggerEvent,
    now: number,
  ): Promise<RoutePlan> {
    const rows = await runWaits.ofRun<WaitRow>(deps.db, event.organizationId, event.target!.runId!)
    const waits = rows.filter(
      (w) =>
        (w.trigger_type === null || w.trigger_type === event.triggerType) && waitMatches(trigger, w, triggerEvent, now),
    )
    return waits.length > 0 ? { waits, triggers: [] } : { waits, triggers: [], reason: 'not_waiting' }
  }

  async function targetWorkflow(
    trigger: AnyTrigger,
    event: RoutedEvent,
    triggerEvent: TriggerEvent,
  ): Promise<RoutePlan> {
    const rows = await liveTriggers.ofWorkflow(
      deps.db,
      event.organizationId,
      event.target!.workflowId!,
      event.triggerType,
    )
    const triggers = rows.filter((row) => triggerMatches(trigger, row, triggerEvent, event.connectorId))
    return triggers.length > 0 ? { waits: [], triggers } : { waits: [], triggers, reason: 'no_matching_trigger' }
  }

  return {
    async plan(event: RoutedEvent, triggerEvent: TriggerEvent, now: number): Promise<RoutePlan> {
      const trigger = deps.registry.trigger(event.triggerType)
      if (!trigger) return { waits: [], triggers: [], reason: 'unknown_trigger_type' }
      const problems = problemsOf(trigger, event.body)
      if (problems.length > 0) return { waits: [], triggers: [], reason: 'invalid_event', problems }
      if (event.target?.runId) return targetRun(trigger, event, triggerEvent, now)
      if (event.target?.workflowId) return targetWorkflow(trigger, event, triggerEvent)
      const [waitRows, triggerRows] = await Promise.all([
        runWaits.ofTriggerType<WaitRow>(deps.db, event.organizationId, event.triggerType),
        liveTriggers.activeOfType(deps.db, event.organizationId, event.triggerType),
      ])
      const waits = waitRows.filter((w) => waitMatches(trigger, w, triggerEvent, now))
      const triggers = triggerRows.filter((row) => triggerMatches(trigger, row, triggerEvent, event.connectorId))
      return waits.length + triggers.length > 0
        ? { waits, triggers }
        : { waits, triggers, reason: 'no_matching_workflow' }
    },
  }
}
