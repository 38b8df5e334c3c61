/**
 * Rows of `live_triggers`: one per trigger node of a live (active or paused) workflow version,
 * kept by the engine's trigger index (runtime/integrations/trigger-index.ts) in the transaction
 * that changes the workflow. Routing reads them by (organization, trigger type) instead of
 * reading every definition; it never writes them.
 */
import type { SqlExecutor } from '../ports/store.ts'

export interface LiveTriggerRow {
  workflow_id: string
  trigger_node_id: string
  organization_id: string
  trigger_type: string
  /** The trigger node's payload (its configuration), as canonical JSON. */
  config: string
  /** The connector the trigger node names, when it names one. */
  connector_id: string | null
  /** The live version the row was made from. */
  version: number
  /** 1 while the live version is active. */
  active: number
}

const COLUMNS = [
  'workflow_id',
  'trigger_node_id',
  'organization_id',
  'trigger_type',
  'config',
  'connector_id',
  'version',
  'active',
] as const

export const liveTriggers = {
  async replace(tx: SqlExecutor, workflowId: string, rows: readonly LiveTriggerRow[]) {
    await tx.run('DELETE FROM live_triggers WHERE workflow_id = $1', [workflowId])
    for (const row of rows) {
      await tx.run(
        `INSERT INTO live_triggers (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
        COLUMNS.map((c) => row[c]),
      )
    }
  },
  /** The active trigger nodes of an organization with a trigger type. */
  activeOfType(db: SqlExecutor, organizationId: string, triggerType: string) {
    return db.all<LiveTriggerRow>(
      'SELECT * FROM live_triggers WHERE organization_id = $1 AND trigger_type = $2 AND active = 1 ORDER BY workflow_id, trigger_node_id',
      [organizationId, triggerType],
    )
  },
  /** One workflow's trigger nodes of a type, active or paused (an event that names the workflow). */
  ofWorkflow(db: SqlExecutor, organizationId: string, workflowId: string, triggerType: string) {
    return db.all<LiveTriggerRow>(
      'SELECT * FROM live_triggers WHERE organization_id = $1 AND workflow_id = $2 AND trigger_type = $3 ORDER BY trigger_node_id',
      [organizationId, workflowId, triggerType],
    )
  },
  /** The row as it stands now (inside a routing transaction: is the node still live in this version?). */
  get(db: SqlExecutor, workflowId: string, triggerNodeId: string) {
    return db.get<LiveTriggerRow>('SELECT * FROM live_triggers WHERE workflow_id = $1 AND trigger_node_id = $2', [
      workflowId,
      triggerNodeId,
    ])
  },
  /** An organization's active, unarchived live workflows with a trigger node of one of `types` (and the version). */
  activeWorkflowsUsing(db: SqlExecutor, organizationId: string, types: readonly string[]) {
    if (types.length === 0) return Promise.resolve([])
    return db.all<{ workflow_id: string; version: number }>(
      `SELECT DISTINCT lt.workflow_id, lt.version FROM live_triggers lt JOIN workflows w ON w.id = lt.workflow_id
       WHERE lt.organization_id = $1 AND w.live_status = 'active' AND w.archived_at IS NULL AND lt.trigger_type IN (${types.map((_, i) => `$${i + 2}`).join(', ')})`,
      [organizationId, ...types],
    )
  },
  /** Live workflows without rows: published before the index existed (filled once at start). */
  unindexed(db: SqlExecutor) {
    return db.all<{ id: string }>(
      `SELECT w.id FROM workflows w WHERE w.live_version IS NOT NULL AND w.archived_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM live_triggers t WHERE t.workflow_id = w.id)`,
    )
  },
}
