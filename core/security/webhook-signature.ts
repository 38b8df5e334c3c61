/**
 * Standard Webhooks signatures (symmetric, `v1`): HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`
 * keyed by the bytes of a `whsec_<base64>` secret, sent as `webhook-signature: v1,<base64>`
 * (several space-separated while a rotated secret is still honoured). Web Crypto only, so it
 * runs wherever the core runs. It signs and verifies; it does not send or store anything.
 */
import { SIGNING_SECRET_PREFIX } from '../domain/execution-hook.ts'
import { fromBase64 } from './secret-box.ts'

const encoder = new TextEncoder()

/** A new `whsec_…` secret: 24 random bytes (192 bits), base64. */
export function generateSigningSecret(): string {
  const bytes = new Uint8Array(24)
  crypto.getRandomValues(bytes)
  return SIGNING_SECRET_PREFIX + toBase64(bytes)
}

/** The HMAC key of a secret, with or without its `whsec_` prefix. */
export function importSigningKey(secret: string): Promise<CryptoKey> {
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret
  const bytes = fromBase64(encoded)
  if (bytes.length === 0) throw new Error('empty signing secret')
  return crypto.subtle.importKey('raw', bytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ])
}

/** `v1,<base64 signature>` for one key. */
export async function sign(key: CryptoKey, id: string, timestampSeconds: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestampSeconds}.${body}`))
  return `v1,${toBase64(new Uint8Array(mac))}`
}

/** The `webhook-signature` header value: one signature per key, space-separated. */
export async function signatureHeader(
  keys: readonly CryptoKey[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  return (await Promise.all(keys.map((key) => sign(key, id, timestampSeconds, body)))).join(' ')
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now; default 300 s. */
  readonly toleranceSeconds?: number
  /** Milliseconds since the epoch; defaults to the current time. */
  readonly now?: number
}

/**
 * Checks a received delivery: the timestamp is within the tolerance and one of the `v1`
 * signatures matches (compared in constant time by Web Crypto). Answers why it failed, or null.
 */
export async function verifyWebhook(
  secret: string,
  headers: { get(name: string): string | null } | Record<string, string | undefined>,
  body: string,
  options: VerifyOptions = {},
): Promise<string | null> {
  const header = (name: string) =>
    (typeof headers.get === 'function'
      ? (headers as { get(n: string): string | null }).get(name)
      : (headers as Record<string, string | undefined>)[name]) ?? null
  const id = header('webhook-id')
  const timestamp = header('webhook-timestamp')
  const signatures = header('webhook-signature')
  if (!id || !timestamp || !signatures) return 'missing webhook-id, webhook-timestamp or webhook-signature'
  if (!/^\d+$/.test(timestamp)) return 'webhook-timestamp is not a number of seconds'
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300))
    return 'webhook-timestamp is outside the tolerance'
  const key = await importSigningKey(secret)
  const signed = encoder.encode(`${id}.${timestamp}.${body}`)
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2)
    if (version !== 'v1' || !value) continue
    let mac: Uint8Array
    try {
      mac = fromBase64(value)
    } catch {
      continue
    }
    if (await crypto.subtle.verify('HMAC', key, mac as BufferSource, signed)) return null
  }
  return 'no signature matches'
}

function toBase64(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s)
}
