/** ctx.crypto in actions: the same Web Crypto helpers every handler gets, usable from a node. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHmac, createHash } from 'node:crypto'
import { defineAction, definePlugin, Type } from '../../core/plugin/sdk.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, runAndWait } from '../helpers/workflows.ts'

const sign = defineAction({
  type: 'crypto-sign',
  name: 'Sign',
  description: 'Signs its message with every crypto helper',
  payload: Type.Object({ key: Type.String(), message: Type.String() }),
  result: Type.Any(),
  async run(ctx) {
    const { key, message } = ctx.payload
    const hmac = await ctx.crypto.hmacSha256(key, message)
    return {
      hmac,
      hmac64: await ctx.crypto.hmacSha256(key, message, 'base64'),
      sha: await ctx.crypto.sha256(message),
      random: ctx.crypto.randomBytes(16),
      random64: ctx.crypto.randomBytes(12, 'base64url'),
      same: ctx.crypto.safeEqual(hmac, await ctx.crypto.hmacSha256(key, message)),
      different: ctx.crypto.safeEqual(hmac, await ctx.crypto.hmacSha256(key, `${message}!`)),
    }
  },
})

for (const kind of storeKinds()) {
  describe(`ctx.crypto in actions (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { plugins: [definePlugin({ id: 'crypto-sign', actions: [sign] })] })
    })
    afterAll(() => t.close())

    it('hashes, signs, compares and draws random bytes', async () => {
      const w = await createLive(t, {
        name: 'sign',
        definition: linear({ sign: { type: 'crypto-sign', payload: { key: 'k3y', message: 'hello' } } }, ['sign']),
      })
      const run = await runAndWait(t, w.id)
      expect(run.status).toBe('success')
      const out = run.nodes.sign.result
      expect(out).toMatchObject({
        hmac: createHmac('sha256', 'k3y').update('hello').digest('hex'),
        hmac64: createHmac('sha256', 'k3y').update('hello').digest('base64'),
        sha: createHash('sha256').update('hello').digest('hex'),
        same: true,
        different: false,
      })
      expect(out.random).toMatch(/^[0-9a-f]{32}$/)
      expect(out.random64).toMatch(/^[A-Za-z0-9_-]{16}$/)
    })
  })
}
