/**
 * Rows of `webhook_events`. A delivery is claimed by inserting its row (ON CONFLICT DO NOTHING
 * on the dedup index) in the transaction that starts its runs, and settled in the same one, so
 * a row is never seen half done; a second delivery finds the first one's row.
 */
import type { PageRequest } from '../domain/common.ts'
import type { WebhookEventFilter } from '../domain/webhook-event.ts'
import type { SqlExecutor } from '../ports/store.ts'

export interface WebhookEventRow {
  id: string
  organization_id: string
  source: string
  provider_event_id: string
  /** The provider event id for deliveries; null for replays, which are never duplicates. */
  dedup_key: string | null
  trigger_type: string
  connector_id: string | null
  /** JSON `{ workflowId?, runId? }` or null. */
  target: string | null
  body: string
  headers: string
  received_at: number
  action: string
  reason: string | null
  /** JSON list of `{ path, message }` or null. */
  problems: string | null
  run_ids: string
  workflow_ids: string
  replay_of: string | null
}

export interface WebhookOutcome {
  action: 'triggered' | 'resumed' | 'skipped'
  reason: string | null
  runIds: readonly string[]
  workflowIds: readonly string[]
}

const COLUMNS = [
  'id',
  'organization_id',
  'source',
  'provider_event_id',
  'dedup_key',
  'trigger_type',
  'connector_id',
  'target',
  'body',
  'headers',
  'received_at',
  'action',
  'reason',
  'problems',
  'run_ids',
  'workflow_ids',
  'replay_of',
] as const

/** `%"<id>"%` for a LIKE over a JSON list of ids, with LIKE's wildcards escaped. */
const inList = (id: string) => `%"${id.replace(/[!%_]/g, '!$&')}"%`

export const webhookEvents = {
  /** Inserts the row unless a row with its dedup key exists; true when this call inserted it. */
  async claim(tx: SqlExecutor, row: WebhookEventRow): Promise<boolean> {
    const inserted = await tx.run(
      `INSERT INTO webhook_events (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (organization_id, source, dedup_key, trigger_type) DO NOTHING`,
      COLUMNS.map((c) => row[c]),
    )
    return inserted === 1
  },
  byDedupKey(db: SqlExecutor, row: Pick<WebhookEventRow, 'organization_id' | 'source' | 'dedup_key' | 'trigger_type'>) {
    return db.get<WebhookEventRow>(
      'SELECT * FROM webhook_events WHERE organization_id = $1 AND source = $2 AND dedup_key = $3 AND trigger_type = $4',
      [row.organization_id, row.source, row.dedup_key, row.trigger_type],
    )
  },
  async settle(tx: SqlExecutor, id: string, outcome: WebhookOutcome) {
    await tx.run('UPDATE webhook_events SET action = $1, reason = $2, run_ids = $3, workflow_ids = $4 WHERE id = $5', [
      outcome.action,
      outcome.reason,
      JSON.stringify(outcome.runIds),
      JSON.stringify(outcome.workflowIds),
      id,
    ])
  },
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<WebhookEventRow>('SELECT * FROM webhook_events WHERE organization_id = $1 AND id = $2', [
      organizationId,
      id,
    ])
  },
  /** Newest first, `limit + 1` rows (see toPage). */
  list(db: SqlExecutor, organizationId: string, page: PageRequest, filter: WebhookEventFilter) {
    const where = ['organization_id = $1']
    const params: string[] = [organizationId]
    const add = (clause: (n: string) => string, value: string | undefined) => {
      if (value === undefined) return
      params.push(value)
      where.push(clause(`$${params.length}`))
    }
    add((n) => `source = ${n}`, filter.source)
    add((n) => `trigger_type = ${n}`, filter.triggerType)
    add((n) => `action = ${n}`, filter.action)
    add((n) => `provider_event_id = ${n}`, filter.providerEventId)
    add((n) => `workflow_ids LIKE ${n} ESCAPE '!'`, filter.workflowId && inList(filter.workflowId))
    add((n) => `run_ids LIKE ${n} ESCAPE '!'`, filter.runId && inList(filter.runId))
    const n = params.length
    return db.all<WebhookEventRow>(
      `SELECT * FROM webhook_events WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, page.limit + 1, page.offset],
    )
  },
}
