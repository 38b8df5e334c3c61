import { describe, expect, it } from 'bun:test'
import {
  generateSigningSecret,
  importSigningKey,
  sign,
  signatureHeader,
  verifyWebhook,
} from '../../../core/security/webhook-signature.ts'
import { fromBase64 } from '../../../core/security/secret-box.ts'

// The signing test vector of the Standard Webhooks reference libraries.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
}

const headers = (signature: string, timestamp = VECTOR.timestamp) => ({
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
})

describe('Standard Webhooks signatures', () => {
  it("signs the specification's test vector to the expected signature", async () => {
    const key = await importSigningKey(VECTOR.secret)
    expect(await sign(key, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature)
    // The prefix is optional when importing, as in the reference libraries.
    expect(await sign(await importSigningKey(VECTOR.secret.slice(6)), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    )
  })

  it('verifies the vector within the tolerance and refuses it outside', async () => {
    const at = VECTOR.timestamp * 1000
    expect(await verifyWebhook(VECTOR.secret, headers(VECTOR.signature), VECTOR.body, { now: at + 60_000 })).toBeNull()
    expect(await verifyWebhook(VECTOR.secret, headers(VECTOR.signature), VECTOR.body, { now: at + 301_000 })).toBe(
      'webhook-timestamp is outside the tolerance',
    )
    expect(await verifyWebhook(VECTOR.secret, headers(VECTOR.signature), VECTOR.body, { now: at - 301_000 })).toBe(
      'webhook-timestamp is outside the tolerance',
    )
  })

  it('refuses a changed body, a wrong secret, a partial or missing signature', async () => {
    const now = VECTOR.timestamp * 1000
    expect(await verifyWebhook(VECTOR.secret, headers(VECTOR.signature), '{"test": 2432232315}', { now })).toBe(
      'no signature matches',
    )
    expect(await verifyWebhook(generateSigningSecret(), headers(VECTOR.signature), VECTOR.body, { now })).toBe(
      'no signature matches',
    )
    expect(await verifyWebhook(VECTOR.secret, headers(VECTOR.signature.slice(0, 8)), VECTOR.body, { now })).toBe(
      'no signature matches',
    )
    expect(await verifyWebhook(VECTOR.secret, headers('v1,'), VECTOR.body, { now })).toBe('no signature matches')
    expect(await verifyWebhook(VECTOR.secret, { 'webhook-id': VECTOR.id }, VECTOR.body, { now })).toContain('missing')
    expect(
      await verifyWebhook(VECTOR.secret, headers(VECTOR.signature, 'hello' as never), VECTOR.body, { now }),
    ).toContain('not a number')
  })

  it('accepts a header listing several signatures when one of them matches', async () => {
    const now = VECTOR.timestamp * 1000
    const list = [
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      VECTOR.signature,
    ].join(' ')
    expect(await verifyWebhook(VECTOR.secret, headers(list), VECTOR.body, { now })).toBeNull()
    const two = await signatureHeader(
      [await importSigningKey(generateSigningSecret()), await importSigningKey(VECTOR.secret)],
      VECTOR.id,
      VECTOR.timestamp,
      VECTOR.body,
    )
    expect(two.split(' ')).toHaveLength(2)
    expect(two.split(' ')[1]).toBe(VECTOR.signature)
  })

  it('makes whsec_ secrets of 24 random bytes', () => {
    const a = generateSigningSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    expect(fromBase64(a.slice(6))).toHaveLength(24)
    expect(generateSigningSecret()).not.toBe(a)
  })
})
