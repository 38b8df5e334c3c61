/**
 * AES-256-GCM secret box on Web Crypto. A sealed value is `v1.<iv>.<ciphertext>` in base64url:
 * a fresh 96-bit IV per seal, the GCM tag inside the ciphertext, so tampering fails to open.
 */
import { base64url } from '../ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export class MasterKeyError extends Error {
  override name = 'MasterKeyError'
}

/** Decodes a base64 (or base64url) master key and checks that it is 32 bytes. */
export function decodeMasterKey(encoded: string): Uint8Array {
  let bytes: Uint8Array
  try {
    bytes = fromBase64(encoded.trim())
  } catch {
    throw new MasterKeyError('AUTOMATON_MASTER_KEY is not valid base64')
  }
  if (bytes.length !== 32) throw new MasterKeyError(`AUTOMATON_MASTER_KEY must be 32 bytes, got ${bytes.length}`)
  return bytes
}

export function generateMasterKey(): string {
  const bytes = new Uint8Array(32)
  crypto.getRandomValues(bytes)
  return btoa(String.fromCharCode(...bytes))
}

export async function createSecretBox(masterKey: Uint8Array): Promise<SecretBox> {
  const key = await crypto.subtle.importKey('raw', masterKey as BufferSource, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt'])
  return Object.freeze({
    async seal(plaintext: string) {
      const iv = new Uint8Array(12)
      crypto.getRandomValues(iv)
      const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, encoder.encode(plaintext))
      return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`
    },
    async open(sealed: string) {
      const [version, iv, data] = sealed.split('.')
      if (version !== 'v1' || !iv || !data) throw new Error('not a sealed value')
      const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv) as BufferSource }, key, fromBase64(data) as BufferSource)
      return decoder.decode(plain)
    },
  })
}

export function fromBase64(text: string): Uint8Array {
  const normal = text.replace(/-/g, '+').replace(/_/g, '/')
  const padded = normal + '='.repeat((4 - (normal.length % 4)) % 4)
  const bin = atob(padded)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}
