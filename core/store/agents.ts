/** Rows of the agent tables: conversations, agent runs with their worker sessions, and each organization's agent workflows. */
import type { SqlExecutor } from '../ports/store.ts'

export interface AgentRunRow {
  run_id: string
  organization_id: string
  agent_type: string
  conversation_id: string
  user_id: string | null
  key_id: string
  sealed_key: string
  parent_span: string | null
  parent_project: string | null
  created_at: number
  ended_at: number | null
}

export interface AgentWorkflowRow {
  organization_id: string
  agent_type: string
  workflow_id: string
  definition_hash: string
  service_account_id: string
}

export const agentStore = {
  conversation: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<{ id: string; agent_type: string }>(
      'SELECT id, agent_type FROM agent_conversations WHERE organization_id = $1 AND id = $2',
      [organizationId, id],
    ),
  insertConversation: (
    db: SqlExecutor,
    c: { id: string; organizationId: string; agentType: string; createdBy: string; at: number },
  ) =>
    db.run(
      'INSERT INTO agent_conversations (id, organization_id, agent_type, created_by, created_at) VALUES ($1, $2, $3, $4, $5)',
      [c.id, c.organizationId, c.agentType, c.createdBy, c.at],
    ),
  insertRun: (db: SqlExecutor, r: AgentRunRow) =>
    db.run(
      `INSERT INTO agent_runs (run_id, organization_id, agent_type, conversation_id, user_id, key_id, sealed_key, parent_span, parent_project, created_at, ended_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL)`,
      [
        r.run_id,
        r.organization_id,
        r.agent_type,
        r.conversation_id,
        r.user_id,
        r.key_id,
        r.sealed_key,
        r.parent_span,
        r.parent_project,
        r.created_at,
      ],
    ),
  deleteRun: (db: SqlExecutor, runId: string) => db.run('DELETE FROM agent_runs WHERE run_id = $1', [runId]),
  run: (db: SqlExecutor, organizationId: string, runId: string) =>
    db.get<AgentRunRow>('SELECT * FROM agent_runs WHERE organization_id = $1 AND run_id = $2', [organizationId, runId]),
  /** The latest earlier runs of a conversation, newest first. */
  runsOf: (db: SqlExecutor, conversationId: string, limit: number) =>
    db.all<AgentRunRow>(
      'SELECT * FROM agent_runs WHERE conversation_id = $1 ORDER BY created_at DESC, run_id DESC LIMIT $2',
      [conversationId, limit],
    ),
  /** Ends an agent run's worker session: its key revoked, in the transaction that records the run's end. The key id, when it was an agent run. */
  async end(db: SqlExecutor, runId: string, at: number): Promise<string | null> {
    const row = await db.get<{ key_id: string; organization_id: string }>(
      'SELECT key_id, organization_id FROM agent_runs WHERE run_id = $1 AND ended_at IS NULL',
      [runId],
    )
    if (!row) return null
    await db.run('UPDATE agent_runs SET ended_at = $1 WHERE run_id = $2', [at, runId])
    await db.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, row.key_id])
    return row.key_id
  },
  isAgentWorkflow: async (db: SqlExecutor, workflowId: string) =>
    (await db.get<{ one: number }>('SELECT 1 AS one FROM agent_workflows WHERE workflow_id = $1', [workflowId])) !==
    undefined,
  workflow: (db: SqlExecutor, organizationId: string, agentType: string) =>
    db.get<AgentWorkflowRow>('SELECT * FROM agent_workflows WHERE organization_id = $1 AND agent_type = $2', [
      organizationId,
      agentType,
    ]),
  saveWorkflow: (db: SqlExecutor, w: AgentWorkflowRow) =>
    db.run(
      `INSERT INTO agent_workflows (organization_id, agent_type, workflow_id, definition_hash, service_account_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, agent_type) DO UPDATE SET workflow_id = excluded.workflow_id, definition_hash = excluded.definition_hash, service_account_id = excluded.service_account_id`,
      [w.organization_id, w.agent_type, w.workflow_id, w.definition_hash, w.service_account_id],
    ),
  /** The agent run a worker session's key belongs to (while it lasts). */
  runOfKey: async (db: SqlExecutor, keyId: string) => {
    const row = await db.get<{ run_id: string; agent_type: string }>(
      'SELECT run_id, agent_type FROM agent_runs WHERE key_id = $1 AND ended_at IS NULL',
      [keyId],
    )
    return row ? { runId: row.run_id, agentType: row.agent_type } : undefined
  },
  /** A run of the organization, with its agent type when it is an agent run. */
  runInfo: async (db: SqlExecutor, organizationId: string, runId: string) => {
    const row = await db.get<{ workflow_id: string; agent_type: string | null }>(
      'SELECT r.workflow_id, a.agent_type FROM runs r LEFT JOIN agent_runs a ON a.run_id = r.id WHERE r.organization_id = $1 AND r.id = $2',
      [organizationId, runId],
    )
    return row ? { workflowId: row.workflow_id, agentType: row.agent_type } : undefined
  },
}
