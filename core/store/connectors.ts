/** Rows of the `connectors` table. The data is split: plain non-secret fields, sealed secrets. */
import type { PageRequest } from '../domain/common.ts'
import type { SqlExecutor } from '../ports/store.ts'

export interface ConnectorRow {
  id: string
  organization_id: string
  type: string
  provider: string
  name: string
  description: string
  /** JSON of the non-secret fields of the data. */
  public_data: string
  /** The secret fields, as one JSON object sealed by the secret box; null when there are none. */
  sealed_secrets: string | null
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
}

const COLUMNS = [
  'id',
  'organization_id',
  'type',
  'provider',
  'name',
  'description',
  'public_data',
  'sealed_secrets',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
] as const

export const connectors = {
  async insert(db: SqlExecutor, row: ConnectorRow) {
    await db.run(
      `INSERT INTO connectors (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
      COLUMNS.map((c) => row[c]),
    )
  },
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<ConnectorRow>('SELECT * FROM connectors WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },
  list(db: SqlExecutor, organizationId: string, page: PageRequest, type?: string) {
    return type
      ? db.all<ConnectorRow>(
          'SELECT * FROM connectors WHERE organization_id = $1 AND type = $2 ORDER BY id DESC LIMIT $3 OFFSET $4',
          [organizationId, type, page.limit + 1, page.offset],
        )
      : db.all<ConnectorRow>(
          'SELECT * FROM connectors WHERE organization_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3',
          [organizationId, page.limit + 1, page.offset],
        )
  },
  /** An organization's connectors of a type, at most `limit`. */
  ofType(db: SqlExecutor, organizationId: string, type: string, limit = 100) {
    return db.all<ConnectorRow>(
      'SELECT * FROM connectors WHERE organization_id = $1 AND type = $2 ORDER BY id LIMIT $3',
      [organizationId, type, limit],
    )
  },
  /**
   * Every organization's connectors of a type whose public (non-secret) fields equal `fields`:
   * installation-wide routing (a chat platform's team id). Compared in the database, so only
   * matching rows travel.
   */
  withPublicData(
    db: SqlExecutor,
    dialect: 'sqlite' | 'postgres',
    type: string,
    fields: Readonly<Record<string, string>>,
  ) {
    const params: unknown[] = [type]
    const conditions = Object.entries(fields).map(([key, value]) => {
      params.push(dialect === 'postgres' ? key : `$."${key.replaceAll('"', '""')}"`, value)
      const [k, v] = [params.length - 1, params.length]
      return dialect === 'postgres'
        ? `(public_data::jsonb ->> $${k}) = $${v}`
        : `json_extract(public_data, $${k}) = $${v}`
    })
    return db.all<ConnectorRow>(
      `SELECT * FROM connectors WHERE type = $1${conditions.map((c) => ` AND ${c}`).join('')} ORDER BY id`,
      params as never,
    )
  },
  async update(
    db: SqlExecutor,
    row: Pick<
      ConnectorRow,
      'id' | 'organization_id' | 'name' | 'description' | 'public_data' | 'sealed_secrets' | 'updated_at' | 'updated_by'
    >,
  ) {
    return db.run(
      'UPDATE connectors SET name = $1, description = $2, public_data = $3, sealed_secrets = $4, updated_at = $5, updated_by = $6 WHERE organization_id = $7 AND id = $8',
      [
        row.name,
        row.description,
        row.public_data,
        row.sealed_secrets,
        row.updated_at,
        row.updated_by,
        row.organization_id,
        row.id,
      ],
    )
  },
  async remove(db: SqlExecutor, organizationId: string, id: string) {
    return db.run('DELETE FROM connectors WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },
  /** Whose connector an id is, whichever organization. */
  organizationOf: async (db: SqlExecutor, id: string) =>
    (await db.get<{ organization_id: string }>('SELECT organization_id FROM connectors WHERE id = $1', [id]))
      ?.organization_id,
  /** The organization's connectors that hold secrets, and when each last changed: a mask of them is good while these stay. */
  sealedStamps: (db: SqlExecutor, organizationId: string) =>
    db.all<{ id: string; updated_at: number }>(
      'SELECT id, updated_at FROM connectors WHERE organization_id = $1 AND sealed_secrets IS NOT NULL ORDER BY id',
      [organizationId],
    ),
  /** The sealed secrets of the organization's connectors. */
  sealedSecrets: (db: SqlExecutor, organizationId: string) =>
    db.all<{ sealed_secrets: string }>(
      'SELECT sealed_secrets FROM connectors WHERE organization_id = $1 AND sealed_secrets IS NOT NULL',
      [organizationId],
    ),
  /** Ids and content of the live (active or paused) versions of an organization's workflows whose content mentions `text`. */
  liveVersionsMentioning(db: SqlExecutor, organizationId: string, text: string) {
    return db.all<{ id: string; content: string }>(
      `SELECT w.id, v.content FROM workflows w JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.live_version
       WHERE w.organization_id = $1 AND w.archived_at IS NULL AND v.content LIKE $2 ESCAPE '!'`,
      [organizationId, `%${text.replace(/[!%_]/g, '!$&')}%`],
    )
  },
}
