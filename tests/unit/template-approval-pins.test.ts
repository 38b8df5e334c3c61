/**
 * Templates approved before approval pinned an app version: the migration pins what their app
 * held at the last approval, read through the template's own organization, and sends back to
 * review an approved template whose app changed since or whose reference pins nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import { apps, templates } from '../../core/store/templates.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

const PINNING = 37

for (const kind of storeKinds()) {
  describe(`approval pins of templates approved earlier (${kind})`, () => {
    let s: TestStore
    beforeAll(async () => {
      s = await openTestStore(kind)
      await s.store.migrate(MIGRATIONS.filter((m) => m.version < PINNING))
      await s.store.write(async (tx) => {
        for (const org of ['org_b', 'org_c'])
          await tx.run('INSERT INTO organizations (id, name, created_at) VALUES ($1, $1, 0)', [org])
        const app = async (id: string, org: string, versions: number[]) => {
          await apps.insert(tx, {
            id,
            organization_id: org,
            name: id,
            latest_version: versions.length,
            created_at: versions[0],
            created_by: 'x',
            updated_at: 0,
            updated_by: 'x',
          })
          for (const [i, at] of versions.entries())
            await apps.insertVersion(tx, {
              id: `${id}_v${i + 1}`,
              appId: id,
              version: i + 1,
              files: '{}',
              size: 2,
              at,
              by: 'x',
            })
        }
        await app('app_changed', 'org_b', [100, 300])
        await app('app_same', 'org_b', [100])
        await app('app_theirs', 'org_c', [100])
        // [id, visibility, status, public version, app, pinned version, approved at]
        const rows: Array<[string, string, string, number | null, string | null, string | null, number | null]> = [
          ['tpl_changed', 'public', 'approved', 1, 'app_changed', null, 200],
          ['tpl_same', 'public', 'approved', 1, 'app_same', null, 200],
          ['tpl_pinned_old', 'public', 'approved', 1, 'app_changed', 'app_changed_v1', 200],
          ['tpl_foreign_version', 'public', 'approved', 1, 'app_same', 'app_theirs_v1', 200],
          ['tpl_foreign_app', 'public', 'approved', 1, 'app_theirs', null, 200],
          ['tpl_rejected_later', 'public', 'rejected', 1, 'app_changed', null, 200],
          ['tpl_org', 'org', 'approved', null, 'app_changed', null, null],
        ]
        for (const [id, visibility, status, publicVersion, appId, versionId, approvedAt] of rows) {
          await tx.run(
            `INSERT INTO templates (id, organization_id, slug, visibility, moderation_status, public_version, current_version, generated_app_id, generated_app_version_id, created_at, created_by, updated_at, updated_by)
             VALUES ($1, 'org_b', $1, $2, $3, $4, 1, $5, $6, 0, 'x', 0, 'x')`,
            [id, visibility, status, publicVersion, appId, versionId],
          )
          if (approvedAt !== null)
            await templates.moderate(tx, {
              id: `evt_${id}`,
              templateId: id,
              version: 1,
              decision: 'approved',
              reason: null,
              by: 'op',
              at: approvedAt,
            })
        }
      })
      await s.store.migrate(MIGRATIONS)
    })
    afterAll(() => s.dispose())

    const state = async (id: string) => {
      const row = (await templates.byId(s.store, id))!
      return { status: row.moderation_status, appId: row.approved_app_id, versionId: row.approved_app_version_id }
    }

    it('pins the version an approval saw, and sends a template whose app changed since back to review', async () => {
      expect(await state('tpl_changed')).toEqual({
        status: 'pending',
        appId: 'app_changed',
        versionId: 'app_changed_v1',
      })
      expect(await state('tpl_same')).toEqual({ status: 'approved', appId: 'app_same', versionId: 'app_same_v1' })
      expect(await state('tpl_pinned_old')).toEqual({
        status: 'approved',
        appId: 'app_changed',
        versionId: 'app_changed_v1',
      })
      expect(await state('tpl_rejected_later')).toEqual({
        status: 'rejected',
        appId: 'app_changed',
        versionId: 'app_changed_v1',
      })
    })

    it("pins nothing of another organization's app, and sends such templates back to review", async () => {
      expect(await state('tpl_foreign_version')).toEqual({ status: 'pending', appId: null, versionId: null })
      expect(await state('tpl_foreign_app')).toEqual({ status: 'pending', appId: null, versionId: null })
    })

    it('leaves organization templates alone', async () => {
      expect(await state('tpl_org')).toEqual({ status: 'approved', appId: null, versionId: null })
    })
  })
}
