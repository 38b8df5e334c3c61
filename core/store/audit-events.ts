/**
 * The audit log's tables: `audit_events` (append-only, never updated) and `audit_heads` (per
 * organization: the last sequence and hash of its chain, and the checkpoint left by pruning).
 */
import { forUpdate, type SqlExecutor, serialOnly } from '../ports/store.ts'

export interface AuditRow {
  id: string
  organization_id: string
  seq: number
  at: number
  actor_kind: string
  actor_id: string
  actor_name: string
  operation: string
  resource_type: string
  resource_id: string | null
  outcome: string
  address: string | null
  user_agent: string | null
  details: string
  hash: string
}

export interface AuditHead {
  seq: number
  hash: string
  pruned_seq: number
  pruned_hash: string
}

export interface AuditQuery {
  actorId?: string
  resourceType?: string
  resourceId?: string
  operation?: string
  since?: number
  until?: number
}

const COLUMNS = [
  'id',
  'organization_id',
  'seq',
  'at',
  'actor_kind',
  'actor_id',
  'actor_name',
  'operation',
  'resource_type',
  'resource_id',
  'outcome',
  'address',
  'user_agent',
  'details',
  'hash',
] as const
const INSERT = `INSERT INTO audit_events (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`

const numeric = <T extends { seq: number }>(row: T): T => ({
  ...row,
  seq: Number(row.seq),
  at: Number((row as { at?: number }).at),
})

export const auditEvents = {
  /** The head of an organization's chain, locked until the transaction ends (created at 0 when absent). */
  async lockHead(tx: SqlExecutor, dialect: 'sqlite' | 'postgres', organizationId: string): Promise<AuditHead> {
    serialOnly(tx)
    await tx.run(
      "INSERT INTO audit_heads (organization_id, seq, hash, pruned_seq, pruned_hash) VALUES ($1, 0, '', 0, '') ON CONFLICT (organization_id) DO NOTHING",
      [organizationId],
    )
    const head = await tx.get<AuditHead>(
      `SELECT seq, hash, pruned_seq, pruned_hash FROM audit_heads WHERE organization_id = $1${forUpdate(dialect)}`,
      [organizationId],
    )
    return {
      seq: Number(head!.seq),
      hash: head!.hash,
      pruned_seq: Number(head!.pruned_seq),
      pruned_hash: head!.pruned_hash,
    }
  },
  async append(tx: SqlExecutor, row: AuditRow): Promise<void> {
    await tx.run(
      INSERT,
      COLUMNS.map((c) => row[c]),
    )
    await tx.run('UPDATE audit_heads SET seq = $2, hash = $3 WHERE organization_id = $1', [
      row.organization_id,
      row.seq,
      row.hash,
    ])
  },
  async head(db: SqlExecutor, organizationId: string): Promise<AuditHead | undefined> {
    const head = await db.get<AuditHead>(
      'SELECT seq, hash, pruned_seq, pruned_hash FROM audit_heads WHERE organization_id = $1',
      [organizationId],
    )
    return head && { ...head, seq: Number(head.seq), pruned_seq: Number(head.pruned_seq) }
  },
  async organizations(db: SqlExecutor): Promise<string[]> {
    const rows = await db.all<{ organization_id: string }>(
      'SELECT organization_id FROM audit_heads ORDER BY organization_id',
    )
    return rows.map((r) => r.organization_id)
  },
  /** Records of an organization after a sequence, in chain order. */
  async after(db: SqlExecutor, organizationId: string, afterSeq: number, limit: number): Promise<AuditRow[]> {
    const rows = await db.all<AuditRow>(
      'SELECT * FROM audit_events WHERE organization_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [organizationId, afterSeq, limit],
    )
    return rows.map(numeric)
  },
  /** Records of an organization, newest first, filtered. */
  async list(db: SqlExecutor, organizationId: string, query: AuditQuery, limit: number, offset: number) {
    const where = ['organization_id = $1']
    const params: Array<string | number> = [organizationId]
    const add = (clause: string, value: string | number | undefined) => {
      if (value === undefined) return
      params.push(value)
      where.push(clause.replace('?', `$${params.length}`))
    }
    add('actor_id = ?', query.actorId)
    add('resource_type = ?', query.resourceType)
    add('resource_id = ?', query.resourceId)
    add('operation = ?', query.operation)
    add('at >= ?', query.since)
    add('at < ?', query.until)
    params.push(limit, offset)
    const rows = await db.all<AuditRow>(
      `SELECT * FROM audit_events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )
    return rows.map(numeric)
  },
  /**
   * Deletes an organization's records older than `before` (and at most up to `upToSeq`), from the
   * oldest, and keeps the last deleted one's sequence and hash as the checkpoint verification starts from.
   */
  async prune(
    tx: SqlExecutor,
    dialect: 'sqlite' | 'postgres',
    organizationId: string,
    before: number,
    upToSeq = Number.MAX_SAFE_INTEGER,
  ): Promise<number> {
    await auditEvents.lockHead(tx, dialect, organizationId)
    const last = await tx.get<{ seq: number; hash: string }>(
      'SELECT seq, hash FROM audit_events WHERE organization_id = $1 AND at < $2 AND seq <= $3 ORDER BY seq DESC LIMIT 1',
      [organizationId, before, upToSeq],
    )
    if (!last) return 0
    const removed = await tx.run('DELETE FROM audit_events WHERE organization_id = $1 AND seq <= $2', [
      organizationId,
      Number(last.seq),
    ])
    await tx.run('UPDATE audit_heads SET pruned_seq = $2, pruned_hash = $3 WHERE organization_id = $1', [
      organizationId,
      Number(last.seq),
      last.hash,
    ])
    return removed
  },
}

/**
 * Where delivery to the audit endpoint stands per organization: the last sequence the endpoint
 * acknowledged, and the process sending now (a lease, so that two processes never send one
 * organization's records side by side, out of order).
 */
export const auditDeliveries = {
  /** Organizations whose chain has records past what the endpoint acknowledged (a read: no lease taken). */
  async pending(db: SqlExecutor): Promise<string[]> {
    const rows = await db.all<{ organization_id: string }>(
      'SELECT h.organization_id FROM audit_heads h LEFT JOIN audit_deliveries d ON d.organization_id = h.organization_id WHERE h.seq > COALESCE(d.seq, 0) ORDER BY h.organization_id',
    )
    return rows.map((r) => r.organization_id)
  },
  /** The last sequence the endpoint acknowledged for an organization (0 when nothing yet). */
  async acknowledged(db: SqlExecutor, organizationId: string): Promise<number> {
    const row = await db.get<{ seq: number }>('SELECT seq FROM audit_deliveries WHERE organization_id = $1', [
      organizationId,
    ])
    return Number(row?.seq ?? 0)
  },
  /** Takes (or keeps) the organization's lease; answers the acknowledged sequence, or null while another holds it. */
  async claim(tx: SqlExecutor, organizationId: string, owner: string, now: number, until: number) {
    await tx.run(
      'INSERT INTO audit_deliveries (organization_id, seq, lease_owner, lease_until) VALUES ($1, 0, NULL, 0) ON CONFLICT (organization_id) DO NOTHING',
      [organizationId],
    )
    const taken = await tx.run(
      'UPDATE audit_deliveries SET lease_owner = $2, lease_until = $3 WHERE organization_id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < $4)',
      [organizationId, owner, until, now],
    )
    if (taken === 0) return null
    const row = await tx.get<{ seq: number }>('SELECT seq FROM audit_deliveries WHERE organization_id = $1', [
      organizationId,
    ])
    return Number(row!.seq)
  },
  /** Moves the acknowledged sequence, while the lease is still ours; false when it was lost. */
  async acknowledge(tx: SqlExecutor, organizationId: string, owner: string, seq: number, until: number) {
    const moved = await tx.run(
      'UPDATE audit_deliveries SET seq = $3, lease_until = $4 WHERE organization_id = $1 AND lease_owner = $2 AND seq < $3',
      [organizationId, owner, seq, until],
    )
    return moved > 0
  },
  release: (tx: SqlExecutor, organizationId: string, owner: string) =>
    tx.run(
      'UPDATE audit_deliveries SET lease_owner = NULL, lease_until = 0 WHERE organization_id = $1 AND lease_owner = $2',
      [organizationId, owner],
    ),
}
