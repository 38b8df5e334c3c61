/**
 * Sealing with a passphrase, for what leaves the installation (the master keys inside a
 * backup): PBKDF2-SHA-256 stretches the passphrase into an AES-256-GCM key. `context` is bound
 * into the seal (GCM additional data), so the sealed text opens only beside what it was made
 * for, such as the backup's database checksum.
 */
import { base64url } from '../ids.ts'
import { fromBase64 } from './secret-box.ts'

export const PBKDF2_ITERATIONS = 600_000

export interface PassphraseSealed {
  kdf: 'PBKDF2-SHA256'
  iterations: number
  salt: string
  iv: string
  data: string
}

export class PassphraseError extends Error {
  override name = 'PassphraseError'
}

async function derive(passphrase: string, salt: Uint8Array, iterations: number): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), 'PBKDF2', false, [
    'deriveKey',
  ])
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  )
}

export async function sealWithPassphrase(
  plaintext: string,
  passphrase: string,
  context: string,
): Promise<PassphraseSealed> {
  const salt = crypto.getRandomValues(new Uint8Array(16))
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const key = await derive(passphrase, salt, PBKDF2_ITERATIONS)
  const data = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(context) },
    key,
    new TextEncoder().encode(plaintext),
  )
  return {
    kdf: 'PBKDF2-SHA256',
    iterations: PBKDF2_ITERATIONS,
    salt: base64url(salt),
    iv: base64url(iv),
    data: base64url(new Uint8Array(data)),
  }
}

export async function openWithPassphrase(
  sealed: PassphraseSealed,
  passphrase: string,
  context: string,
): Promise<string> {
  if (sealed.kdf !== 'PBKDF2-SHA256' || !(sealed.iterations >= 100_000))
    throw new PassphraseError('unknown key derivation in the sealed text')
  const key = await derive(passphrase, fromBase64(sealed.salt), sealed.iterations)
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64(sealed.iv) as BufferSource, additionalData: new TextEncoder().encode(context) },
      key,
      fromBase64(sealed.data) as BufferSource,
    )
    return new TextDecoder().decode(plain)
  } catch {
    throw new PassphraseError('wrong passphrase, or the backup was changed')
  }
}
