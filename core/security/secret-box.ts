/**
 * AES-256-GCM secret box on Web Crypto. A sealed value is `v1.<iv>.<ciphertext>` in base64url:
 * a fresh 96-bit IV per seal, the GCM tag inside the ciphertext, so tampering fails to open.
 *
 * A box holds a keyring for master-key rotation: it opens values sealed with any of its keys
 * (GCM refuses a wrong key, so the right one is found by trying), and seals with the key the
 * installation names (`sealingKeyId`, stored in the database), so that every process switches at
 * the same moment when `automaton master-key rotate` says so. A box that meets a value or a
 * sealing key it has no key for may `reload` its keys once (the data dir's key files).
 */
import { base64url } from '../ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export class MasterKeyError extends Error {
  override name = 'MasterKeyError'
}

/** Decodes a base64 (or base64url) master key and checks that it is 32 bytes. */
export function decodeMasterKey(encoded: string, name = 'AUTOMATON_MASTER_KEY'): Uint8Array {
  let bytes: Uint8Array
  try {
    bytes = fromBase64(encoded.trim())
  } catch {
    throw new MasterKeyError(`${name} is not valid base64`)
  }
  if (bytes.length !== 32) throw new MasterKeyError(`${name} must be 32 bytes, got ${bytes.length}`)
  return bytes
}

export function generateMasterKey(): string {
  const bytes = new Uint8Array(32)
  crypto.getRandomValues(bytes)
  return btoa(String.fromCharCode(...bytes))
}

/** A key's public name: the first 96 bits of its SHA-256, base64url. Says nothing about the key. */
export async function masterKeyId(key: Uint8Array): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', key as BufferSource))).slice(0, 16)
}

export interface KeyringOptions {
  /** Keys that only open: the key being replaced during a rotation. */
  readonly others?: readonly Uint8Array[]
  /** The id of the key that seals, as the installation says; null: the first key. */
  readonly sealingKeyId?: () => Promise<string | null>
  /** Reads the keys again (every key the process may use); called when a needed key is missing. */
  readonly reload?: () => Promise<readonly Uint8Array[]> | readonly Uint8Array[]
}

export interface Keyring extends SecretBox {
  /** The id of the first key. */
  readonly keyId: string
  /** Ids of every key held now. */
  keyIds(): string[]
  /** Whether a key with this id is held, after one reload when it is not. */
  has(id: string): Promise<boolean>
}

interface HeldKey {
  id: string
  key: CryptoKey
}

async function hold(bytes: Uint8Array): Promise<HeldKey> {
  return {
    id: await masterKeyId(bytes),
    key: await crypto.subtle.importKey('raw', bytes as BufferSource, { name: 'AES-GCM' }, false, [
      'encrypt',
      'decrypt',
    ]),
  }
}

export async function createSecretBox(masterKey: Uint8Array, options: KeyringOptions = {}): Promise<Keyring> {
  let keys: HeldKey[] = await Promise.all([masterKey, ...(options.others ?? [])].map(hold))
  const first = keys[0]

  async function reload(): Promise<boolean> {
    if (!options.reload) return false
    const fresh = await Promise.all((await options.reload()).map(hold))
    const known = new Set(keys.map((k) => k.id))
    const added = fresh.filter((k) => !known.has(k.id))
    keys = [...keys, ...added]
    return added.length > 0
  }

  const find = (id: string) => keys.find((k) => k.id === id)

  async function sealingKey(): Promise<HeldKey> {
    const id = (await options.sealingKeyId?.()) ?? first.id
    const key = find(id) ?? ((await reload()) ? find(id) : undefined)
    if (!key)
      throw new MasterKeyError(
        `new secrets are sealed with master key ${id}, which this process does not have; see docs/operations.md (rotating the master key)`,
      )
    return key
  }

  async function tryOpen(iv: Uint8Array, data: Uint8Array): Promise<string | null> {
    for (const k of keys) {
      try {
        return decoder.decode(
          await crypto.subtle.decrypt({ name: 'AES-GCM', iv: iv as BufferSource }, k.key, data as BufferSource),
        )
      } catch {}
    }
    return null
  }

  return Object.freeze({
    keyId: first.id,
    keyIds: () => keys.map((k) => k.id),
    async has(id: string) {
      return find(id) !== undefined || ((await reload()) && find(id) !== undefined)
    },
    async seal(plaintext: string) {
      const { key } = await sealingKey()
      const iv = new Uint8Array(12)
      crypto.getRandomValues(iv)
      const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, encoder.encode(plaintext))
      return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`
    },
    async open(sealed: string) {
      const [version, iv, data] = sealed.split('.')
      if (version !== 'v1' || !iv || !data) throw new Error('not a sealed value')
      const ivBytes = fromBase64(iv)
      const dataBytes = fromBase64(data)
      const plain = (await tryOpen(ivBytes, dataBytes)) ?? ((await reload()) ? await tryOpen(ivBytes, dataBytes) : null)
      if (plain === null) throw new Error('the sealed value opens with none of the master keys held')
      return plain
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
