/** The `ctx.crypto` of webhook handlers, on Web Crypto; the host and the test kit share it. */
import { hmacSha256, sha256Hex, timingSafeEqual, toHex } from '../security/hash.ts'
import type { WebhookCrypto } from './webhook.ts'

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))

export const webhookCrypto: WebhookCrypto = Object.freeze({
  async hmacSha256(key: string, message: string, encoding: 'hex' | 'base64' = 'hex') {
    const mac = await hmacSha256(key, message)
    return encoding === 'hex' ? toHex(mac) : base64(mac)
  },
  async sha256(message: string, encoding: 'hex' | 'base64' = 'hex') {
    if (encoding === 'hex') return sha256Hex(message)
    return base64(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(message))))
  },
  safeEqual: timingSafeEqual,
})
