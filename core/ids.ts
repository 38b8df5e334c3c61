/**
 * Default id generator: `<prefix>_<26 chars>`, Crockford base32 of a 48-bit millisecond time
 * followed by 80 random bits. Lexical order is creation order: within one millisecond the
 * random part of the previous id is incremented (monotonic, as ULID specifies), so ids made by
 * one process sort exactly as they were made. The random part makes them unguessable.
 */
import type { Clock } from './ports/clock.ts'
import type { IdPrefix, Ids } from './ports/ids.ts'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

export function createIds(clock: Clock): Ids {
  const random = new Uint8Array(10)
  let lastTime = -1
  // Busy processes make many ids per millisecond: the time part is encoded once per millisecond.
  let lastTimeText = ''
  return Object.freeze({
    next(prefix: IdPrefix) {
      const now = Math.max(clock.now(), lastTime)
      if (now === lastTime) increment(random)
      else {
        crypto.getRandomValues(random)
        lastTimeText = encodeTime(now)
      }
      lastTime = now
      return `${prefix}_${lastTimeText}${encodeRandom(random)}`
    },
  })
}

function increment(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] < 255) {
      bytes[i]++
      return
    }
    bytes[i] = 0
  }
}

function encodeTime(ms: number): string {
  let out = ''
  let t = Math.max(0, Math.floor(ms))
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out
    t = Math.floor(t / 32)
  }
  return out
}

function encodeRandom(buffer: Uint8Array): string {
  // 80 bits → 16 base32 characters, five bits at a time.
  let out = ''
  let acc = 0
  let bits = 0
  for (const byte of buffer) {
    acc = (acc << 8) | byte
    bits += 8
    while (bits >= 5) {
      bits -= 5
      out += ALPHABET[(acc >> bits) & 31]
    }
    acc &= (1 << bits) - 1
  }
  return out
}

/** Random bytes as base64url without padding; for secrets and raw keys. */
export function randomToken(bytes: number): string {
  const buf = new Uint8Array(bytes)
  crypto.getRandomValues(buf)
  return base64url(buf)
}

export function base64url(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
