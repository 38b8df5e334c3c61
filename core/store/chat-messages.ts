/**
 * Rows of `chat_messages` (the builder and contract chats) and `contracts`. History pages are read
 * by keyset, newest first: `(created_at, id) < (before, beforeId)`, so messages with equal
 * timestamps at a page edge are never skipped nor repeated.
 */
import type { SqlExecutor, SqlValue } from '../ports/store.ts'

export interface ChatMessageRow {
  id: string
  organization_id: string
  chat: 'builder' | 'contract'
  conversation_id: string
  workflow_id: string | null
  session_id: string | null
  turn_id: string
  role: string
  content: string
  agent_version: string
  sender_user_id: string | null
  image_urls: string
  structured_payload: string | null
  tokens_used: number
  linked_run_id: string | null
  created_at: number
}

/** A message with the status and times of the run it links, read from the run itself. */
export interface LinkedMessageRow extends ChatMessageRow {
  run_status: string | null
  run_started_at: number | null
  run_finished_at: number | null
}

export interface ContractRow {
  id: string
  organization_id: string
  name: string
  status: string
  plan: string | null
  source: string | null
  abi: string | null
  bytecode: string | null
  compile_error: string | null
  created_by: string
  created_at: number
  updated_at: number
}

const LINKED = `SELECT m.*, r.status AS run_status, r.started_at AS run_started_at, r.finished_at AS run_finished_at
  FROM chat_messages m LEFT JOIN runs r ON r.id = m.linked_run_id`

export const chatMessages = {
  async insert(db: SqlExecutor, m: ChatMessageRow) {
    const keys = Object.keys(m) as (keyof ChatMessageRow)[]
    await db.run(
      `INSERT INTO chat_messages (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`,
      keys.map((k) => m[k] as SqlValue),
    )
  },
  link: (db: SqlExecutor, id: string, runId: string) =>
    db.run('UPDATE chat_messages SET linked_run_id = $1 WHERE id = $2', [runId, id]),

  /** A page of one conversation, workflow or session, newest first, before a keyset cursor. */
  page(
    db: SqlExecutor,
    organizationId: string,
    by: { column: 'conversation_id' | 'workflow_id' | 'session_id'; value: string },
    chat: string,
    limit: number,
    before?: { at: number; id: string | null },
  ) {
    const params: SqlValue[] = [organizationId, by.value, chat]
    let cursor = ''
    if (before) {
      params.push(before.at)
      if (before.id) {
        params.push(before.id)
        cursor = ' AND (m.created_at < $4 OR (m.created_at = $4 AND m.id < $5))'
      } else cursor = ' AND m.created_at < $4'
    }
    params.push(limit)
    return db.all<LinkedMessageRow>(
      `${LINKED} WHERE m.organization_id = $1 AND m.${by.column} = $2 AND m.chat = $3${cursor} ORDER BY m.created_at DESC, m.id DESC LIMIT $${params.length}`,
      params,
    )
  },
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<LinkedMessageRow>(`${LINKED} WHERE m.organization_id = $1 AND m.id = $2`, [organizationId, id]),
}

export const contracts = {
  async insert(db: SqlExecutor, c: ContractRow) {
    const keys = Object.keys(c) as (keyof ContractRow)[]
    await db.run(
      `INSERT INTO contracts (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`,
      keys.map((k) => c[k] as SqlValue),
    )
  },
  async update(db: SqlExecutor, id: string, patch: Partial<ContractRow>) {
    const keys = Object.keys(patch) as (keyof ContractRow)[]
    return db.run(
      `UPDATE contracts SET ${keys.map((k, i) => `${k} = $${i + 1}`).join(', ')} WHERE id = $${keys.length + 1}`,
      [...keys.map((k) => patch[k] as SqlValue), id],
    )
  },
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<ContractRow>('SELECT * FROM contracts WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  list: (db: SqlExecutor, organizationId: string, limit: number, offset: number) =>
    db.all<ContractRow>(
      'SELECT * FROM contracts WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3',
      [organizationId, limit, offset],
    ),
}
