/**
 * The app a template hands to its forks, and what approval pins of it.
 *
 * - A reference (`generatedAppId`, optionally `generatedAppVersionId`) names one of the template
 *   organization's apps, and a version of that app; anything else is 400, on create as on update.
 * - Approval pins the exact version it saw (the pinned one, or the app's latest at that moment).
 *   Other organizations' forks receive that version, whatever happened to the app since; the
 *   template's own organization forks what the reference names now.
 * - Every read goes through the template organization's apps: never an app or version by bare id.
 *
 * It does not decide moderation states: the template service sends a template back to review
 * when its reference changes, and the app service when a followed app gets a new version.
 */
import { badRequest, conflict } from '../errors.ts'
import type { Dialect, SqlExecutor } from '../ports/store.ts'
import { apps, type AppRow, type AppVersionRow, type TemplateRow } from '../store/templates.ts'

/** An app and, when pinned, one of its versions (null: the app's latest). */
export interface AppReference {
  appId: string | null
  versionId: string | null
}

const sameReference = (a: AppReference, b: AppReference) => a.appId === b.appId && a.versionId === b.versionId

/** A reference checked to name the organization's app and a version of it; 400 otherwise. */
export async function checkAppReference(
  db: SqlExecutor,
  organizationId: string,
  ref: { appId?: string | null; versionId?: string | null },
): Promise<AppReference> {
  if (!ref.appId) {
    if (ref.versionId)
      throw badRequest('generatedAppVersionId needs generatedAppId', [
        { path: '/generatedAppVersionId', message: 'needs generatedAppId' },
      ])
    return { appId: null, versionId: null }
  }
  if (!(await apps.byId(db, organizationId, ref.appId)))
    throw badRequest('no such app in this organization', [{ path: '/generatedAppId', message: 'unknown app' }])
  if (ref.versionId && !(await apps.versionOf(db, organizationId, ref.appId, ref.versionId))) {
    throw badRequest('not a version of that app', [{ path: '/generatedAppVersionId', message: 'unknown app version' }])
  }
  return { appId: ref.appId, versionId: ref.versionId ?? null }
}

/**
 * The reference after an update: given fields replace the stored ones (a new `generatedAppId`
 * without a version follows that app's latest), checked like a new template's. A body that names
 * neither keeps the stored reference as it is. `changed` sends a public template back to review.
 */
export async function updatedAppReference(
  db: SqlExecutor,
  row: TemplateRow,
  body: { generatedAppId?: string | null; generatedAppVersionId?: string | null },
): Promise<AppReference & { changed: boolean }> {
  const stored = { appId: row.generated_app_id, versionId: row.generated_app_version_id }
  if (body.generatedAppId === undefined && body.generatedAppVersionId === undefined)
    return { ...stored, changed: false }
  const ref = await checkAppReference(db, row.organization_id, {
    appId: body.generatedAppId !== undefined ? body.generatedAppId : stored.appId,
    versionId:
      body.generatedAppVersionId !== undefined
        ? body.generatedAppVersionId
        : body.generatedAppId !== undefined
          ? null
          : stored.versionId,
  })
  return { ...ref, changed: !sameReference(ref, stored) }
}

/**
 * What approving `row` pins: the exact version its reference names now, the app locked so that no
 * new version lands before the decision commits. 409 when the reference names no app version of
 * the template's organization (a reference stored before references were checked).
 */
export async function approvalPin(
  tx: SqlExecutor,
  dialect: Dialect,
  row: TemplateRow,
): Promise<{ approved_app_id: string | null; approved_app_version_id: string | null }> {
  if (!row.generated_app_id) return { approved_app_id: null, approved_app_version_id: null }
  const app = await apps.lockById(tx, dialect, row.organization_id, row.generated_app_id)
  const version = app ? await referencedVersion(tx, row.organization_id, app, row.generated_app_version_id) : undefined
  if (!app || !version)
    throw conflict(
      "the template's generatedAppId or generatedAppVersionId names no app version of its organization; the author must point it at one, or clear it",
    )
  return { approved_app_id: app.id, approved_app_version_id: version.id }
}

/**
 * The app a fork by `forkingOrganizationId` receives: the template's own organization gets what
 * the reference names now, every other organization the version approval pinned.
 */
export async function appForFork(
  db: SqlExecutor,
  row: TemplateRow,
  forkingOrganizationId: string,
): Promise<{ app: AppRow; version: AppVersionRow } | undefined> {
  const own = row.organization_id === forkingOrganizationId
  const appId = own ? row.generated_app_id : row.approved_app_id
  const versionId = own ? row.generated_app_version_id : row.approved_app_version_id
  if (!appId || (!own && !versionId)) return undefined
  const app = await apps.byId(db, row.organization_id, appId)
  const version = app ? await referencedVersion(db, row.organization_id, app, versionId) : undefined
  return app && version ? { app, version } : undefined
}

function referencedVersion(db: SqlExecutor, organizationId: string, app: AppRow, versionId: string | null) {
  return versionId
    ? apps.versionOf(db, organizationId, app.id, versionId)
    : apps.version(db, app.id, app.latest_version)
}
