import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

for (const kind of storeKinds()) {
  describe(`API keys (${kind})`, () => {
    let t: TestSystem
    const clock = createSkewedClock()
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
    })
    afterAll(() => t.close())

    it('mints a key shown once, with at least 32 random bytes, stored only as a hash', async () => {
      const r = await t.call('POST', '/v1/api-keys', { body: { name: 'deploy', description: 'CI deploys' } })
      expect(r.status).toBe(200)
      const key = r.body.data
      expect(key.key).toMatch(/^svcsk_[A-Za-z0-9_-]{43,}$/)
      expect(key.keyPrefix).toBe(key.key.slice(0, key.keyPrefix.length))
      expect(key.keyPrefix.length).toBeLessThan(16)
      expect(key).toMatchObject({
        name: 'deploy',
        description: 'CI deploys',
        scope: 'read-write',
        organizationId: t.orgId,
        revokedAt: '',
        expiresAt: '',
      })
      const rows = await t.system.store.all<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [key.id])
      const stored = JSON.stringify(rows)
      expect(stored).not.toContain(key.key)
      expect(stored).not.toContain(key.key.slice(6))
      // Reading it back never shows the raw key again.
      const again = await t.call('GET', `/v1/api-keys/${key.id}`)
      expect(again.body.data.key).toBeUndefined()
      expect(JSON.stringify(again.body)).not.toContain(key.key)
      const me = await t.call('GET', '/v1/me', { key: key.key })
      expect(me.status).toBe(200)
      expect(me.body.data.keyId).toBe(key.id)
    })

    it('answers 401 for a missing, malformed or unknown key', async () => {
      for (const key of [null, 'svcsk_nope', 'not-a-key']) {
        const r = await t.call('GET', '/v1/api-keys', { key })
        expect(r.status).toBe(401)
        expect(r.body.code).toBe(401)
      }
      const basic = await t.call('GET', '/v1/api-keys', { key: null, headers: { authorization: 'Basic abc' } })
      expect(basic.status).toBe(401)
    })

    it('revokes a key: it stops working at once and its record stays with revokedAt', async () => {
      const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'temp' } })).body.data
      expect((await t.call('GET', '/v1/me', { key: created.key })).status).toBe(200)
      const revoked = await t.call('DELETE', `/v1/api-keys/${created.id}`)
      expect(revoked.status).toBe(200)
      expect(revoked.body.data.revokedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/)
      const denied = await t.call('GET', '/v1/me', { key: created.key })
      expect(denied.status).toBe(401)
      expect(denied.body.message).toContain('revoked')
      const kept = await t.call('GET', `/v1/api-keys/${created.id}`)
      expect(kept.status).toBe(200)
      expect(kept.body.data.revokedAt).toBe(revoked.body.data.revokedAt)
      // Revoking again keeps the first revocation time.
      const twice = await t.call('DELETE', `/v1/api-keys/${created.id}`)
      expect(twice.body.data.revokedAt).toBe(revoked.body.data.revokedAt)
    })

    it('refuses an expiry in the past and stops an expired key with 401', async () => {
      const past = await t.call('POST', '/v1/api-keys', { body: { name: 'old', expiresAt: '2020-01-01T00:00:00Z' } })
      expect(past.status).toBe(400)
      expect(past.body.details[0].path).toBe('/expiresAt')
      const inAnHour = new Date(clock.now() + 3_600_000).toISOString()
      const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'short', expiresAt: inAnHour } })).body.data
      expect(created.expiresAt).toBe(inAnHour)
      clock.skip(3_600_000 - 60_000)
      expect((await t.call('GET', '/v1/me', { key: created.key })).status).toBe(200)
      clock.skip(60_000)
      const expired = await t.call('GET', '/v1/me', { key: created.key })
      expect(expired.status).toBe(401)
      expect(expired.body.message).toContain('expired')
    })

    it('limits a read-scoped key to read and stream permissions', async () => {
      const reader = (await t.call('POST', '/v1/api-keys', { body: { name: 'dashboard', scope: 'read' } })).body.data
      const me = (await t.call('GET', '/v1/me', { key: reader.key })).body.data
      expect(me.scope).toBe('read')
      expect(me.permissions.length).toBeGreaterThan(0)
      for (const p of me.permissions) expect(p).toMatch(/:(read|stream)$/)
      expect((await t.call('GET', '/v1/api-keys', { key: reader.key })).status).toBe(200)
      const write = await t.call('POST', '/v1/api-keys', { key: reader.key, body: { name: 'escalate' } })
      expect(write.status).toBe(403)
      expect(write.body.code).toBe(403)
      expect(write.body.message).toContain('apikey:create')
    })

    it('lists keys newest first with limit, offset and hasMore', async () => {
      for (let i = 0; i < 3; i++) await t.call('POST', '/v1/api-keys', { body: { name: `page-${i}` } })
      const first = await t.call('GET', '/v1/api-keys?limit=2')
      expect(first.body.data).toMatchObject({ limit: 2, offset: 0, hasMore: true })
      expect(first.body.data.items).toHaveLength(2)
      expect(first.body.data.items[0].name).toBe('page-2')
      const all = await t.call('GET', '/v1/api-keys?limit=100')
      expect(all.body.data.hasMore).toBe(false)
      const last = await t.call('GET', `/v1/api-keys?limit=2&offset=${all.body.data.items.length - 1}`)
      expect(last.body.data.items).toHaveLength(1)
      expect(last.body.data.hasMore).toBe(false)
      const ids = all.body.data.items.map((k: { id: string }) => k.id)
      expect([...ids].sort().reverse()).toEqual(ids)
      for (const item of all.body.data.items) expect(item.key).toBeUndefined()
    })

    it('records last use in memory and writes it in a batch, not per request', async () => {
      const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'tracked' } })).body.data
      await t.call('GET', '/v1/me', { key: created.key, headers: { 'user-agent': 'probe/1.0' } })
      await t.call('GET', '/v1/me', { key: created.key, headers: { 'user-agent': 'probe/2.0' } })
      const before = await t.system.store.get<{ last_used_at: number | null }>(
        'SELECT last_used_at FROM api_keys WHERE id = $1',
        [created.id],
      )
      expect(before?.last_used_at).toBeNull()
      await t.system.auth.flush()
      const after = (await t.call('GET', `/v1/api-keys/${created.id}`)).body.data
      expect(after.lastUsedAt).toMatch(/^\d{4}-/)
      expect(after.lastUsedUserAgent).toBe('probe/2.0')
    })

    it("keeps organizations apart: another organization's key is a 404", async () => {
      const other = await t.newOrganization(`other-${kind}`)
      const mine = (await t.call('POST', '/v1/api-keys', { body: { name: 'mine' } })).body.data
      const r = await t.call('GET', `/v1/api-keys/${mine.id}`, { key: other.key })
      expect(r.status).toBe(404)
      const del = await t.call('DELETE', `/v1/api-keys/${mine.id}`, { key: other.key })
      expect(del.status).toBe(404)
      expect((await t.call('GET', '/v1/me', { key: mine.key })).status).toBe(200)
      const list = await t.call('GET', '/v1/api-keys?limit=100', { key: other.key })
      expect(list.body.data.items.every((k: { organizationId: string }) => k.organizationId === other.orgId)).toBe(true)
    })
  })
}
