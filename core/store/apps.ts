/** Apps: the text files a workflow's widget page serves, in numbered versions. */
import { type Dialect, forUpdate, type SqlExecutor } from '../ports/store.ts'

export interface AppRow {
  id: string
  organization_id: string
  name: string
  latest_version: number
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
}

export interface AppVersionRow {
  id: string
  version: number
  files: string
  size: number
  created_at: number
  created_by: string
}

export const apps = {
  async insert(db: SqlExecutor, r: AppRow) {
    await db.run(
      'INSERT INTO apps (id, organization_id, name, latest_version, created_at, created_by, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [r.id, r.organization_id, r.name, r.latest_version, r.created_at, r.created_by, r.updated_at, r.updated_by],
    )
  },
  async insertVersion(
    db: SqlExecutor,
    v: { id: string; appId: string; version: number; files: string; size: number; at: number; by: string },
  ) {
    await db.run(
      'INSERT INTO app_versions (id, app_id, version, files, size, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [v.id, v.appId, v.version, v.files, v.size, v.at, v.by],
    )
  },
  /** A new app with its first version, as made by a person or by a fork. */
  async create(
    db: SqlExecutor,
    a: {
      id: string
      versionId: string
      organizationId: string
      name: string
      files: string
      size: number
      at: number
      by: string
    },
  ) {
    await apps.insert(db, {
      id: a.id,
      organization_id: a.organizationId,
      name: a.name,
      latest_version: 1,
      created_at: a.at,
      created_by: a.by,
      updated_at: a.at,
      updated_by: a.by,
    })
    await apps.insertVersion(db, {
      id: a.versionId,
      appId: a.id,
      version: 1,
      files: a.files,
      size: a.size,
      at: a.at,
      by: a.by,
    })
  },
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<AppRow>('SELECT * FROM apps WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  /** The organization's app, locked until the transaction ends: no new version lands meanwhile. */
  lockById: (db: SqlExecutor, dialect: Dialect, organizationId: string, id: string) =>
    db.get<AppRow>(`SELECT * FROM apps WHERE organization_id = $1 AND id = $2${forUpdate(dialect)}`, [
      organizationId,
      id,
    ]),
  byIdAny: (db: SqlExecutor, id: string) => db.get<AppRow>('SELECT * FROM apps WHERE id = $1', [id]),
  version: (db: SqlExecutor, appId: string, version: number) =>
    db.get<AppVersionRow>(
      'SELECT id, version, files, size, created_at, created_by FROM app_versions WHERE app_id = $1 AND version = $2',
      [appId, version],
    ),
  setLatest: (db: SqlExecutor, a: { id: string; name: string; latestVersion: number; at: number; by: string }) =>
    db.run('UPDATE apps SET name = $1, latest_version = $2, updated_at = $3, updated_by = $4 WHERE id = $5', [
      a.name,
      a.latestVersion,
      a.at,
      a.by,
      a.id,
    ]),
  /** A version by its id, only when it is one of `appId`'s and that app is the organization's. */
  versionOf: (db: SqlExecutor, organizationId: string, appId: string, versionId: string) =>
    db.get<AppVersionRow>(
      `SELECT v.id, v.version, v.files, v.size, v.created_at, v.created_by FROM app_versions v JOIN apps a ON a.id = v.app_id
       WHERE a.organization_id = $1 AND a.id = $2 AND v.id = $3`,
      [organizationId, appId, versionId],
    ),
}
