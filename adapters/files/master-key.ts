/**
 * The embedded mode's master key: read from `<dataDir>/master.key`, or generated there (mode
 * 0600) on first start. Uses node:fs, which Bun and Deno both provide.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export function loadOrCreateMasterKey(dataDir: string, generate: () => string): { key: string; created: boolean } {
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, 'master.key')
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), created: false }
  const key = generate()
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' })
    return { key, created: true }
  } catch (error) {
    // Another process of this data dir wrote it first: use theirs.
    if ((error as { code?: string }).code === 'EEXIST')
      return { key: readFileSync(file, 'utf8').trim(), created: false }
    throw error
  }
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true })
}

/**
 * Every key of the data dir: `master.key`, then `master.key.next` while a rotation is under way
 * (written before the database switches to it, renamed over `master.key` after).
 */
export function readMasterKeys(dataDir: string): string[] {
  return ['master.key', 'master.key.next']
    .map((name) => join(dataDir, name))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8').trim())
}

/** Writes the key a rotation moves to, beside the current one (mode 0600). */
export function stageNextMasterKey(dataDir: string, key: string): void {
  writeFileSync(join(dataDir, 'master.key.next'), `${key}\n`, { mode: 0o600 })
}

/** Makes the staged key the data dir's key; the old key is gone from the disk. */
export function promoteNextMasterKey(dataDir: string): void {
  renameSync(join(dataDir, 'master.key.next'), join(dataDir, 'master.key'))
}

/** Writes the data dir's key (a restore); refuses to replace one. */
export function writeMasterKey(dataDir: string, key: string, extra: readonly string[] = []): void {
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(join(dataDir, 'master.key'), `${key}\n`, { mode: 0o600, flag: 'wx' })
  if (extra.length > 0) writeFileSync(join(dataDir, 'master.key.next'), `${extra[0]}\n`, { mode: 0o600, flag: 'wx' })
}
