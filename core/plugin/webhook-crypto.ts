/** Every handler's `ctx.crypto`, on Web Crypto; the host and the test kit share it. */
import { hmacSha256, sha256Hex, timingSafeEqual, toHex } from '../security/hash.ts'
import type { PluginCrypto } from './lifecycle.ts'

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))

const base64url = (bytes: Uint8Array) => base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

export const pluginCrypto: PluginCrypto = Object.freeze({
  async hmacSha256(key: string, message: string, encoding: 'hex' | 'base64' = 'hex') {
    const mac = await hmacSha256(key, message)
    return encoding === 'hex' ? toHex(mac) : base64(mac)
  },
  async sha256(message: string, encoding: 'hex' | 'base64' = 'hex') {
    if (encoding === 'hex') return sha256Hex(message)
    return base64(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(message))))
  },
  safeEqual: timingSafeEqual,
  randomBytes(size: number, encoding: 'hex' | 'base64url' = 'hex') {
    if (!Number.isInteger(size) || size < 1 || size > 65_536) throw new RangeError('randomBytes: size must be 1–65536')
    const bytes = crypto.getRandomValues(new Uint8Array(size))
    return encoding === 'hex' ? toHex(bytes) : base64url(bytes)
  },
})

/** The name webhooks' code has used; the same toolbox. */
export const webhookCrypto = pluginCrypto
