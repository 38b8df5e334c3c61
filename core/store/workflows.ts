/**
 * Workflow rows: the identity row (`workflows`: live/draft pointers, run-control state) and
 * one row per version (`workflow_versions`: the content, as JSON). A version's status is
 * derived: the draft pointer's version is `draft`, the live pointer's is `active`/`paused`,
 * older ones are `archived`, and everything is `archived` while the workflow is archived.
 */
import type { PageRequest } from '../domain/common.ts'
import type { PausedReason, Workflow, WorkflowContent, WorkflowStatus } from '../domain/workflow.ts'
import { type Dialect, forUpdate, serialOnly, type SqlExecutor, type Statement } from '../ports/store.ts'
import { iso } from '../time.ts'

export interface WorkflowRow {
  id: string
  organization_id: string
  owner_user_id: string | null
  trigger_secret: string
  name: string
  type: string
  latest_version: number
  draft_version: number | null
  live_version: number | null
  live_status: 'active' | 'paused' | null
  paused_reason: PausedReason | null
  archived_at: number | null
  remain_runs: number | null
  last_triggered_at: number | null
  consecutive_failures: number
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
}

export interface VersionRow {
  workflow_id: string
  version: number
  organization_id: string
  content: string
  type: string
  version_created_by: string
  created_at: number
  updated_at: number
  updated_by: string
  published_at: number | null
}

export function versionStatus(w: WorkflowRow, version: number): WorkflowStatus {
  if (w.archived_at !== null) return 'archived'
  if (version === w.draft_version) return 'draft'
  if (version === w.live_version) return w.live_status ?? 'active'
  return 'archived'
}

export function toWorkflow(w: WorkflowRow, v: VersionRow): Workflow {
  const content = JSON.parse(v.content) as WorkflowContent
  return {
    id: w.id,
    ...content,
    // Versions saved before the field existed have none.
    runRetention: content.runRetention ?? null,
    flowControl: content.flowControl ?? null,
    pinnedData: content.pinnedData ?? {},
    responseNodeId: content.responseNodeId ?? '',
    // Unset strings are "", never null (the specification's rule for every resource).
    sourceTemplateId: content.sourceTemplateId ?? '',
    organizationId: w.organization_id,
    ownerUserId: w.owner_user_id ?? '',
    createdAt: iso(w.created_at),
    createdBy: w.created_by,
    updatedAt: iso(v.updated_at),
    updatedBy: v.updated_by,
    versionCreatedBy: v.version_created_by,
    version: v.version,
    status: versionStatus(w, v.version),
    type: v.type,
    remainRuns: w.remain_runs,
    lastTriggeredAt: iso(w.last_triggered_at) ?? '',
    pausedReason: (w.live_version !== null && w.live_status === 'paused' ? w.paused_reason : null) ?? '',
    hasDraft: w.draft_version !== null && w.live_version !== null,
    hasLiveVersion: w.live_version !== null,
    liveVersionPaused: w.live_status === 'paused',
    triggerSecret: w.trigger_secret,
  }
}

/** The version shown for a workflow: the draft when there is one, else the live one. */
export const displayVersion = (w: WorkflowRow) => w.draft_version ?? w.live_version ?? w.latest_version

const WORKFLOW_COLUMNS = [
  'id',
  'organization_id',
  'owner_user_id',
  'trigger_secret',
  'name',
  'type',
  'latest_version',
  'draft_version',
  'live_version',
  'live_status',
  'paused_reason',
  'archived_at',
  'remain_runs',
  'last_triggered_at',
  'consecutive_failures',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
] as const

const placeholders = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ')

export const workflows = {
  /**
   * Pauses a live workflow that is active (and, when given, still at `version`), with a reason;
   * 0 when it was not active.
   */
  pauseLive: (db: SqlExecutor, p: { id: string; reason: string; at: number; version?: number }) =>
    p.version === undefined
      ? db.run(
          "UPDATE workflows SET live_status = 'paused', paused_reason = $1, updated_at = $2 WHERE id = $3 AND live_status = 'active' AND archived_at IS NULL",
          [p.reason, p.at, p.id],
        )
      : db.run(
          "UPDATE workflows SET live_status = 'paused', paused_reason = $1, updated_at = $2 WHERE id = $3 AND live_version = $4 AND live_status = 'active' AND archived_at IS NULL",
          [p.reason, p.at, p.id, p.version],
        ),
  /** One more automatic run failed in a row: the count after it. */
  async countFailure(db: SqlExecutor, id: string): Promise<number> {
    const row = await db.get<{ n: number }>(
      'UPDATE workflows SET consecutive_failures = consecutive_failures + 1 WHERE id = $1 RETURNING consecutive_failures AS n',
      [id],
    )
    return Number(row?.n ?? 0)
  },
  /** Resets the count of consecutive failures after a success: a statement, run with the run's journal row (journal.insertWith). */
  resetFailuresStatement: (id: string): Statement => ({
    sql: 'UPDATE workflows SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0',
    params: [id],
  }),
  setPropValues: (db: SqlExecutor, id: string, plain: string, sealed: string | null) =>
    db.run('UPDATE workflows SET prop_values = $1, sealed_props = $2 WHERE id = $3', [plain, sealed, id]),
  /** The time a workflow last triggered, written in batches: only ever moves forward. */
  noteTriggered: (db: SqlExecutor, id: string, at: number) =>
    db.run(
      'UPDATE workflows SET last_triggered_at = $1 WHERE id = $2 AND (last_triggered_at IS NULL OR last_triggered_at < $1)',
      [at, id],
    ),
  setApp: (db: SqlExecutor, id: string, appId: string | null, version: number | null) =>
    db.run('UPDATE workflows SET app_id = $1, app_version = $2 WHERE id = $3', [appId, version, id]),
  async insert(db: SqlExecutor, w: WorkflowRow) {
    await db.run(
      `INSERT INTO workflows (${WORKFLOW_COLUMNS.join(', ')}) VALUES (${placeholders(WORKFLOW_COLUMNS.length)})`,
      WORKFLOW_COLUMNS.map((c) => w[c]),
    )
  },
  /**
   * The workflow row, locked for the rest of the transaction on Postgres (read at READ COMMITTED,
   * a write that depends on it needs the lock; SQLite has one writer). Any organization's: callers
   * have the id from a row of their own.
   */
  lockById: (db: SqlExecutor, dialect: Dialect, id: string) => {
    serialOnly(db)
    return db.get<WorkflowRow>(`SELECT * FROM workflows WHERE id = $1${forUpdate(dialect)}`, [id])
  },
  /** The same, within an organization. */
  lockInOrganization: (db: SqlExecutor, dialect: Dialect, organizationId: string, id: string) => {
    serialOnly(db)
    return db.get<WorkflowRow>(`SELECT * FROM workflows WHERE organization_id = $1 AND id = $2${forUpdate(dialect)}`, [
      organizationId,
      id,
    ])
  },
  exists: async (db: SqlExecutor, organizationId: string, id: string) =>
    (await db.get('SELECT 1 AS one FROM workflows WHERE organization_id = $1 AND id = $2', [organizationId, id])) !==
    undefined,
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<WorkflowRow>('SELECT * FROM workflows WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },
  /**
   * A workflow and when its live version last changed (`live_stamp`; null without one), in one
   * statement: for Postgres, where each statement is a round trip. (On SQLite this join measured
   * ten times slower than two key lookups.)
   */
  withLiveStamp(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<WorkflowRow & { live_stamp: number | null }>(
      `SELECT w.*, v.updated_at AS live_stamp FROM workflows w
       LEFT JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.live_version
       WHERE w.organization_id = $1 AND w.id = $2`,
      [organizationId, id],
    )
  },
  byIdAnyOrg: (db: SqlExecutor, id: string) => db.get<WorkflowRow>('SELECT * FROM workflows WHERE id = $1', [id]),
  bySecret(db: SqlExecutor, secret: string) {
    return db.get<WorkflowRow>('SELECT * FROM workflows WHERE trigger_secret = $1', [secret])
  },
  /** Whose webhook a secret opens: the few columns an inbound webhook needs before admission reads the row. */
  webhookTarget(db: SqlExecutor, secret: string) {
    return db.get<Pick<WorkflowRow, 'id' | 'organization_id' | 'archived_at'>>(
      'SELECT id, organization_id, archived_at FROM workflows WHERE trigger_secret = $1',
      [secret],
    )
  },
  list(
    db: SqlExecutor,
    organizationId: string,
    page: PageRequest,
    filter: { status?: WorkflowStatus; search?: string; archived?: boolean },
  ) {
    const where = ['organization_id = $1']
    const params: (string | number)[] = [organizationId]
    if (filter.search) {
      params.push(`%${filter.search.toLowerCase()}%`)
      where.push(`LOWER(name) LIKE $${params.length}`)
    }
    switch (filter.status) {
      case 'archived':
        where.push('archived_at IS NOT NULL')
        break
      case 'draft':
        where.push('archived_at IS NULL AND draft_version IS NOT NULL')
        break
      case 'active':
      case 'paused':
        params.push(filter.status)
        where.push(`archived_at IS NULL AND draft_version IS NULL AND live_status = $${params.length}`)
        break
      default:
        if (!filter.archived) where.push('archived_at IS NULL')
    }
    params.push(page.limit + 1, page.offset)
    return db.all<WorkflowRow>(
      `SELECT * FROM workflows WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )
  },
  /** Updates the given columns of the identity row. */
  async update(db: SqlExecutor, id: string, patch: Partial<WorkflowRow>) {
    const keys = Object.keys(patch) as (keyof WorkflowRow)[]
    if (keys.length === 0) return 0
    return db.run(
      `UPDATE workflows SET ${keys.map((k, i) => `${k} = $${i + 1}`).join(', ')} WHERE id = $${keys.length + 1}`,
      [...keys.map((k) => patch[k] as string | number | null), id],
    )
  },
  byOwner(db: SqlExecutor, organizationId: string, ownerUserId: string) {
    return db.all<WorkflowRow>('SELECT * FROM workflows WHERE organization_id = $1 AND owner_user_id = $2', [
      organizationId,
      ownerUserId,
    ])
  },
  liveWorkflows(db: SqlExecutor) {
    return db.all<WorkflowRow>(
      "SELECT * FROM workflows WHERE live_version IS NOT NULL AND archived_at IS NULL AND live_status = 'active'",
    )
  },
  /** Ids of workflows whose live version has a node of one of `types` (any state: the caller decides). */
  async liveUsingAny(db: SqlExecutor, types: readonly string[]): Promise<string[]> {
    if (types.length === 0) return []
    const uses = types.map((_, i) => `v.content LIKE $${i + 1}`).join(' OR ')
    const rows = await db.all<{ id: string }>(
      `SELECT w.id FROM workflows w JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.live_version WHERE ${uses}`,
      types.map((t) => `%"type":"${t}"%`),
    )
    return rows.map((r) => r.id)
  },
  /** Whose workflow an id is, whichever organization. */
  organizationOf: async (db: SqlExecutor, id: string) =>
    (await db.get<{ organization_id: string }>('SELECT organization_id FROM workflows WHERE id = $1', [id]))
      ?.organization_id,
  /** What a public page of a workflow needs (its public run, its widget): whose, the live version, the linked app. */
  publicTarget: (db: SqlExecutor, id: string) =>
    db.get<
      Pick<WorkflowRow, 'id' | 'organization_id' | 'live_version' | 'archived_at'> & {
        app_id: string | null
        app_version: number | null
      }
    >('SELECT id, organization_id, live_version, archived_at, app_id, app_version FROM workflows WHERE id = $1', [id]),
  /** The app linked to a workflow's widget page. */
  appOf: async (db: SqlExecutor, id: string) =>
    (await db.get<{ app_id: string | null }>('SELECT app_id FROM workflows WHERE id = $1', [id]))?.app_id ?? null,
  /** A workflow's sensitive prop values, sealed (null: none). */
  sealedProps: async (db: SqlExecutor, id: string) =>
    (await db.get<{ sealed_props: string | null }>('SELECT sealed_props FROM workflows WHERE id = $1', [id]))
      ?.sealed_props ?? null,
  /** The organization's workflows with sealed prop values, for its secret masks. */
  sealedPropsOf: (db: SqlExecutor, organizationId: string) =>
    db.all<{ id: string; sealed_props: string }>(
      'SELECT id, sealed_props FROM workflows WHERE organization_id = $1 AND sealed_props IS NOT NULL ORDER BY id',
      [organizationId],
    ),
}

export const versions = {
  /** A version's content alone (JSON text). */
  content: async (db: SqlExecutor, workflowId: string, version: number) =>
    (
      await db.get<{ content: string }>(
        'SELECT content FROM workflow_versions WHERE workflow_id = $1 AND version = $2',
        [workflowId, version],
      )
    )?.content,
  /** When a version last changed: a cache of its parsed content is good while this stays. */
  stamp: async (db: SqlExecutor, workflowId: string, version: number) =>
    (
      await db.get<{ updated_at: number }>(
        'SELECT updated_at FROM workflow_versions WHERE workflow_id = $1 AND version = $2',
        [workflowId, version],
      )
    )?.updated_at,
  async insert(db: SqlExecutor, v: VersionRow) {
    await db.run(
      `INSERT INTO workflow_versions (workflow_id, version, organization_id, content, type, version_created_by, created_at, updated_at, updated_by, published_at)
       VALUES (${placeholders(10)})`,
      [
        v.workflow_id,
        v.version,
        v.organization_id,
        v.content,
        v.type,
        v.version_created_by,
        v.created_at,
        v.updated_at,
        v.updated_by,
        v.published_at,
      ],
    )
  },
  get(db: SqlExecutor, workflowId: string, version: number) {
    return db.get<VersionRow>('SELECT * FROM workflow_versions WHERE workflow_id = $1 AND version = $2', [
      workflowId,
      version,
    ])
  },
  list(db: SqlExecutor, workflowId: string, page: PageRequest) {
    return db.all<VersionRow>(
      'SELECT * FROM workflow_versions WHERE workflow_id = $1 ORDER BY version DESC LIMIT $2 OFFSET $3',
      [workflowId, page.limit + 1, page.offset],
    )
  },
  /** Rewrites a version's content in place (drafts only; versionCreatedBy never changes). */
  async updateContent(
    db: SqlExecutor,
    workflowId: string,
    version: number,
    content: string,
    type: string,
    at: number,
    by: string,
  ) {
    return db.run(
      'UPDATE workflow_versions SET content = $1, type = $2, updated_at = $3, updated_by = $4 WHERE workflow_id = $5 AND version = $6',
      [content, type, at, by, workflowId, version],
    )
  },
  async markPublished(db: SqlExecutor, workflowId: string, version: number, at: number) {
    return db.run('UPDATE workflow_versions SET published_at = $1 WHERE workflow_id = $2 AND version = $3', [
      at,
      workflowId,
      version,
    ])
  },
  async remove(db: SqlExecutor, workflowId: string, version: number) {
    return db.run('DELETE FROM workflow_versions WHERE workflow_id = $1 AND version = $2', [workflowId, version])
  },
}
