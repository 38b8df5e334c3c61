/**
 * Apps: small sets of text files (a page and its scripts) an organization attaches to a workflow.
 * Every change is a new version. A workflow with `publicWidgetConfig.enabled` serves its app (or
 * the built-in widget page) at `/w/{workflowId}/` without authentication. A new version of an app
 * that public templates follow (no pinned version) sends them back to review.
 */
import { badRequest, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Store } from '../ports/store.ts'
import { apps, type AppRow, templates } from '../store/templates.ts'
import { versions, workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded } from './operations.ts'

export const MAX_APP_BYTES = 2 * 1024 * 1024
const PATH = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/

function checkFiles(files: Record<string, string>): number {
  const problems = Object.keys(files)
    .filter((path) => !PATH.test(path))
    .map((path) => ({
      path: `/files/${path.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      message: 'a file path is words of letters, digits, ".", "_" and "-" joined by "/", without "." or ".." parts',
    }))
  if (problems.length > 0) throw badRequest('invalid file paths', problems)
  let size = 0
  for (const [path, text] of Object.entries(files)) size += path.length + new TextEncoder().encode(text).length
  if (size > MAX_APP_BYTES)
    throw badRequest(`an app holds at most ${MAX_APP_BYTES} bytes of files`, [
      { path: '/files', message: `${size} bytes` },
    ])
  return size
}

/** An app (the files a workflow's widget page serves) at one of its versions. */
export interface App {
  id: string
  organizationId: string
  name: string
  version: number
  versionId: string
  latestVersion: number
  files: Record<string, string>
  size: number
  createdAt: string
  createdBy: string
  updatedAt: string
  updatedBy: string
}

/** Apps: creating and versioning them, linking one to a workflow's widget page, and what that page serves. */
export interface AppService {
  /** A new app at version 1. */
  create(caller: Principal, body: { name: string; files: Record<string, string> }): Promise<App>
  /** A new version of an app (its name alone changes in place). */
  update(caller: Principal, id: string, body: { name?: string; files?: Record<string, string> }): Promise<App>
  /** An app at its latest version. */
  get(caller: Principal, id: string): Promise<App>
  /** An app at one of its versions. */
  version(caller: Principal, id: string, version: number): Promise<App>
  /** Links an app (at its latest version, or a pinned one) to a workflow's widget page; null unlinks. */
  link(
    caller: Principal,
    workflowId: string,
    appId: string | null,
    version?: number,
  ): Promise<{ workflowId: string; appId: string; version: number | null }>
  /** What `/w/{workflowId}/…` serves: the widget settings and the app's files, or null (404). */
  widget(
    workflowId: string,
  ): Promise<{ config: Record<string, unknown>; name: string; files: Record<string, string> | null } | null>
}

export function createAppService(deps: { store: Store; clock: Clock; ids: Ids }): AppService {
  const { store, clock } = deps
  const toApp = (r: AppRow, v: { id: string; version: number; files: string; size: number }): App => ({
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    version: v.version,
    versionId: v.id,
    latestVersion: r.latest_version,
    files: JSON.parse(v.files) as Record<string, string>,
    size: v.size,
    createdAt: iso(r.created_at),
    createdBy: r.created_by,
    updatedAt: iso(r.updated_at),
    updatedBy: r.updated_by,
  })

  async function own(caller: Principal, id: string) {
    const row = await apps.byId(store, caller.organizationId, id)
    if (!row) throw notFound('app')
    return row
  }

  return guarded<AppService>(
    'apps',
    {
      get: ['workflow:read'],
      version: ['workflow:read'],
      create: ['workflow:update'],
      update: ['workflow:update'],
      link: ['workflow:update'],
      // The public run page's widget: no caller.
      widget: null,
    },
    {
      async create(caller: Principal, body: { name: string; files: Record<string, string> }) {
        const size = checkFiles(body.files)
        const id = deps.ids.next('app')
        const at = clock.now()
        const by = actorOf(caller)
        await store.write((tx) =>
          apps.create(tx, {
            id,
            versionId: deps.ids.next('app'),
            organizationId: caller.organizationId,
            name: body.name,
            files: JSON.stringify(body.files),
            size,
            at,
            by,
          }),
        )
        return this.get(caller, id)
      },
      async update(caller: Principal, id: string, body: { name?: string; files?: Record<string, string> }) {
        const row = await own(caller, id)
        const current = (await apps.version(store, id, row.latest_version))!
        const files = body.files ?? (JSON.parse(current.files) as Record<string, string>)
        const size = checkFiles(files)
        const at = clock.now()
        const by = actorOf(caller)
        await store.write(async (tx) => {
          const next = row.latest_version + 1
          // Templates first, then the app: the order an approval locks them in. An approval that
          // commits first pinned the previous version, and its template still goes back to review.
          await templates.resubmitFollowersOf(tx, caller.organizationId, id, at)
          await apps.insertVersion(tx, {
            id: deps.ids.next('app'),
            appId: id,
            version: next,
            files: JSON.stringify(files),
            size,
            at,
            by,
          })
          await apps.setLatest(tx, { id, name: body.name ?? row.name, latestVersion: next, at, by })
        })
        return this.get(caller, id)
      },
      async get(caller: Principal, id: string) {
        const row = await own(caller, id)
        return toApp(row, (await apps.version(store, id, row.latest_version))!)
      },
      async version(caller: Principal, id: string, version: number) {
        const row = await own(caller, id)
        const v = await apps.version(store, id, version)
        if (!v) throw notFound(`version ${version} of app`)
        return toApp(row, v)
      },
      /** Links an app (at its latest version, or a pinned one) to a workflow's widget page; null unlinks. */
      async link(caller: Principal, workflowId: string, appId: string | null, version?: number) {
        if (!(await workflows.exists(store, caller.organizationId, workflowId))) throw notFound('workflow')
        if (appId) {
          const row = await own(caller, appId)
          if (version !== undefined && !(await apps.version(store, row.id, version)))
            throw badRequest('no such version of the app', [{ path: '/version', message: 'unknown version' }])
        }
        await store.write((tx) => workflows.setApp(tx, workflowId, appId, appId ? (version ?? null) : null))
        // Unset strings are "" in answers (the specification's rule): "" when detached.
        return { workflowId, appId: appId ?? '', version: appId ? (version ?? null) : null }
      },
      /** What `/w/{workflowId}/…` serves: the widget settings and the app's files, or null (404). */
      async widget(
        workflowId: string,
      ): Promise<{ config: Record<string, unknown>; name: string; files: Record<string, string> | null } | null> {
        const w = await workflows.publicTarget(store, workflowId)
        if (!w || w.live_version === null || w.archived_at !== null) return null
        const content = JSON.parse((await versions.content(store, w.id, w.live_version))!) as {
          name: string
          publicWidgetConfig: Record<string, unknown> | null
          visibility: string
        }
        if (!content.publicWidgetConfig?.enabled) return null
        let files: Record<string, string> | null = null
        if (w.app_id) {
          const app = await apps.byIdAny(store, w.app_id)
          const version = app ? await apps.version(store, app.id, w.app_version ?? app.latest_version) : undefined
          if (version) files = JSON.parse(version.files) as Record<string, string>
        }
        return { config: content.publicWidgetConfig, name: content.name, files }
      },
    },
  )
}
