import { describe, expect, it } from 'bun:test'
import { createSecretBox, decodeMasterKey, generateMasterKey, MasterKeyError } from '../../core/security/secret-box.ts'

describe('secret box', () => {
  it('opens what it sealed, with a fresh IV each time', async () => {
    const box = await createSecretBox(decodeMasterKey(generateMasterKey()))
    const a = await box.seal('whsec_topsecret')
    const b = await box.seal('whsec_topsecret')
    expect(a).not.toBe(b)
    expect(a).not.toContain('topsecret')
    expect(a).toMatch(/^v1\./)
    expect(await box.open(a)).toBe('whsec_topsecret')
    expect(await box.open(b)).toBe('whsec_topsecret')
  })

  it('refuses a tampered ciphertext and another key', async () => {
    const box = await createSecretBox(decodeMasterKey(generateMasterKey()))
    const other = await createSecretBox(decodeMasterKey(generateMasterKey()))
    const sealed = await box.seal('payload')
    const [v, iv, data] = sealed.split('.')
    const flipped = `${v}.${iv}.${data.slice(0, -2)}${data.slice(-2) === 'AA' ? 'AB' : 'AA'}`
    await expect(box.open(flipped)).rejects.toThrow()
    await expect(other.open(sealed)).rejects.toThrow()
    await expect(box.open('plain text')).rejects.toThrow()
  })

  it('accepts only a 32-byte base64 master key', () => {
    expect(decodeMasterKey(generateMasterKey())).toHaveLength(32)
    expect(() => decodeMasterKey(btoa('short'))).toThrow(MasterKeyError)
    expect(() => decodeMasterKey('%%%')).toThrow(MasterKeyError)
  })
})
