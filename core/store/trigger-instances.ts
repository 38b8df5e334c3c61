/**
 * What poll rows (trigger-polls.ts) and subscription rows (trigger-subscriptions.ts) both begin
 * with: the trigger instance a row was made for, a trigger node of a workflow's live version.
 * Each table adds its own state; this names only the instance.
 */
import type { SqlValue } from '../ports/store.ts'

/** The instance's columns, as both tables store them. */
export interface TriggerInstanceColumns {
  id: string
  organization_id: string
  workflow_id: string
  node_id: string
  trigger_type: string
  /** The trigger node's payload and connector reference, as canonical JSON. */
  config: string
}

/** The instance of a new row, as the inserts take it. */
export interface NewTriggerInstance {
  id: string
  organizationId: string
  workflowId: string
  nodeId: string
  triggerType: string
  config: string
}

/** The first six parameters of an insert, in the order of the instance's columns. */
export const triggerInstanceValues = (r: NewTriggerInstance): SqlValue[] => [
  r.id,
  r.organizationId,
  r.workflowId,
  r.nodeId,
  r.triggerType,
  r.config,
]
