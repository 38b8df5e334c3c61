import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

for (const kind of storeKinds()) {
  describe(`service accounts (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const createAccount = async (permissions: string[], key?: string) =>
      t.call('POST', '/v1/service-accounts', { key, body: { name: 'runner', description: 'runs things', permissions } })
    const mintFor = async (serviceAccountId: string, key?: string) =>
      t.call('POST', '/v1/api-keys', { key, body: { name: 'sa key', serviceAccountId } })

    it('creates an account with an explicit permission list and reads it back', async () => {
      const r = await createAccount(['workflow:execute', 'run:read'])
      expect(r.status).toBe(200)
      const sa = r.body.data
      expect(sa.id).toMatch(/^sa_/)
      expect(sa).toMatchObject({
        name: 'runner',
        description: 'runs things',
        permissions: ['workflow:execute', 'run:read'],
        status: 'active',
        disabledAt: '',
        organizationId: t.orgId,
      })
      const got = await t.call('GET', `/v1/service-accounts/${sa.id}`)
      expect(got.body.data).toEqual(sa)
    })

    it('refuses unknown permission names with 400 naming each', async () => {
      const r = await createAccount(['run:read', 'run:everything', 'root'])
      expect(r.status).toBe(400)
      expect(r.body.details.map((d: { path: string }) => d.path)).toEqual(['/permissions/1', '/permissions/2'])
    })

    it("gives a key minted for an account exactly the account's permissions", async () => {
      const sa = (await createAccount(['workflow:execute', 'run:read'])).body.data
      const key = (await mintFor(sa.id)).body.data
      expect(key.serviceAccountId).toBe(sa.id)
      const me = (await t.call('GET', '/v1/me', { key: key.key })).body.data
      expect(me.serviceAccountId).toBe(sa.id)
      expect(me.permissions).toEqual(['run:read', 'workflow:execute'])
    })

    it('keeps a least-privilege account from minting keys or accounts', async () => {
      const sa = (await createAccount(['workflow:execute', 'run:read'])).body.data
      const key = (await mintFor(sa.id)).body.data.key
      const mint = await t.call('POST', '/v1/api-keys', { key, body: { name: 'sneaky' } })
      expect(mint.status).toBe(403)
      const mintForSelf = await mintFor(sa.id, key)
      expect(mintForSelf.status).toBe(403)
      const account = await createAccount(['run:read'], key)
      expect(account.status).toBe(403)
    })

    it('lets a caller grant only permissions it holds (403 naming the missing ones)', async () => {
      const delegator = (await createAccount(['service_account:write', 'apikey:create', 'run:read', 'workflow:read']))
        .body.data
      const key = (await mintFor(delegator.id)).body.data.key
      const ok = await createAccount(['run:read'], key)
      expect(ok.status).toBe(200)
      const tooMuch = await createAccount(['run:read', 'workflow:delete', 'org:update'], key)
      expect(tooMuch.status).toBe(403)
      expect(tooMuch.body.details.map((d: { permission: string }) => d.permission)).toEqual([
        'workflow:delete',
        'org:update',
      ])
      // Minting a key for a more powerful account is granting too.
      const strong = (await createAccount(['workflow:delete'])).body.data
      expect((await mintFor(strong.id, key)).status).toBe(403)
      expect((await mintFor(ok.body.data.id, key)).status).toBe(200)
      // A key it mints without an account stays within its own account.
      const plain = await t.call('POST', '/v1/api-keys', { key, body: { name: 'own' } })
      expect(plain.status).toBe(200)
      expect(plain.body.data.serviceAccountId).toBe(delegator.id)
    })

    it('lets a caller act only on accounts whose permissions it holds: no disabling, editing or deleting a stronger one', async () => {
      const manager = (await createAccount(['service_account:write', 'apikey:create', 'run:read'])).body.data
      const key = (await mintFor(manager.id)).body.data.key
      const strong = (await createAccount(['workflow:delete', 'run:read'])).body.data
      const strongKey = (await mintFor(strong.id)).body.data.key
      const weak = (await createAccount(['run:read'])).body.data
      for (const [method, path, body] of [
        ['POST', `/v1/service-accounts/${strong.id}/disable`, undefined],
        ['PATCH', `/v1/service-accounts/${strong.id}`, { description: 'mine now' }],
        ['DELETE', `/v1/service-accounts/${strong.id}`, undefined],
      ] as const) {
        const r = await t.call(method, path, { key, body })
        expect({ path, method, status: r.status }).toEqual({ path, method, status: 403 })
      }
      // The stronger account and its key are untouched.
      expect((await t.call('GET', `/v1/service-accounts/${strong.id}`)).body.data).toMatchObject({
        status: 'active',
        description: 'runs things',
      })
      expect((await t.call('GET', '/v1/runs', { key: strongKey })).status).toBe(200)
      // An account within the caller's permissions it may manage.
      expect((await t.call('POST', `/v1/service-accounts/${weak.id}/disable`, { key })).status).toBe(200)
      expect((await t.call('DELETE', `/v1/service-accounts/${weak.id}`, { key })).status).toBe(200)
    })

    it("stops an account's keys at once when it is disabled, and restores them on enable", async () => {
      const sa = (await createAccount(['run:read'])).body.data
      const key = (await mintFor(sa.id)).body.data.key
      expect((await t.call('GET', '/v1/me', { key })).status).toBe(200)
      const disabled = await t.call('POST', `/v1/service-accounts/${sa.id}/disable`)
      expect(disabled.body.data).toMatchObject({ status: 'disabled' })
      expect(disabled.body.data.disabledAt).toMatch(/^\d{4}-/)
      const denied = await t.call('GET', '/v1/me', { key })
      expect(denied.status).toBe(401)
      expect(denied.body.message).toContain('disabled')
      expect((await mintFor(sa.id)).status).toBe(400)
      const enabled = await t.call('POST', `/v1/service-accounts/${sa.id}/enable`)
      expect(enabled.body.data).toMatchObject({ status: 'active', disabledAt: '' })
      expect((await t.call('GET', '/v1/me', { key })).status).toBe(200)
    })

    it('applies permission changes to existing keys at once', async () => {
      const sa = (await createAccount(['run:read'])).body.data
      const key = (await mintFor(sa.id)).body.data.key
      expect((await t.call('GET', '/v1/service-accounts', { key })).status).toBe(403)
      const patched = await t.call('PATCH', `/v1/service-accounts/${sa.id}`, {
        body: { permissions: ['run:read', 'service_account:read'], name: 'renamed' },
      })
      expect(patched.body.data).toMatchObject({
        name: 'renamed',
        permissions: ['run:read', 'service_account:read'],
        description: 'runs things',
      })
      expect((await t.call('GET', '/v1/service-accounts', { key })).status).toBe(200)
    })

    it('deletes an account: its keys are revoked and it is gone', async () => {
      const sa = (await createAccount(['run:read'])).body.data
      const minted = (await mintFor(sa.id)).body.data
      const del = await t.call('DELETE', `/v1/service-accounts/${sa.id}`)
      expect(del.body.data).toEqual({ id: sa.id, deleted: true })
      expect((await t.call('GET', `/v1/service-accounts/${sa.id}`)).status).toBe(404)
      expect((await t.call('GET', '/v1/me', { key: minted.key })).status).toBe(401)
      const keyRecord = (await t.call('GET', `/v1/api-keys/${minted.id}`)).body.data
      expect(keyRecord.revokedAt).toMatch(/^\d{4}-/)
    })

    it('lists accounts with pagination and keeps other organizations out', async () => {
      const list = await t.call('GET', '/v1/service-accounts?limit=2')
      expect(list.body.data).toMatchObject({ limit: 2, offset: 0, hasMore: true })
      const other = await t.newOrganization(`sa-other-${kind}`)
      const theirs = await t.call('GET', '/v1/service-accounts', { key: other.key })
      expect(theirs.body.data.items).toEqual([])
      const mine = list.body.data.items[0]
      expect((await t.call('GET', `/v1/service-accounts/${mine.id}`, { key: other.key })).status).toBe(404)
      expect((await t.call('POST', `/v1/service-accounts/${mine.id}/disable`, { key: other.key })).status).toBe(404)
      expect(
        (await t.call('POST', '/v1/api-keys', { key: other.key, body: { name: 'x', serviceAccountId: mine.id } }))
          .status,
      ).toBe(400)
    })
  })
}
