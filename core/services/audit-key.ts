/**
 * The audit chains' HMAC key: 32 random bytes made at the first start, kept in the installation
 * settings sealed by the master key. The database alone holds only the sealed key, so whoever
 * can edit the database but not read the master key cannot compute a valid link.
 */
import type { Clock } from '../ports/clock.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { installationSettings } from '../store/installation-settings.ts'

export const AUDIT_KEY_SETTING = 'audit_key'

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))

export async function openAuditKey(store: Store, box: SecretBox, clock: Clock): Promise<CryptoKey> {
  const fresh = base64(crypto.getRandomValues(new Uint8Array(32)))
  const sealed = await box.seal(fresh)
  await store.write((tx) => installationSettings.setIfAbsent(tx, AUDIT_KEY_SETTING, sealed, clock.now()))
  const kept = (await installationSettings.get(store, AUDIT_KEY_SETTING))!
  const raw = fromBase64(await box.open(kept))
  return crypto.subtle.importKey('raw', raw as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
}
