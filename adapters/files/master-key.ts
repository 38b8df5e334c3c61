/**
 * The embedded mode's master key: read from `<dataDir>/master.key`, or generated there (mode
 * 0600) on first start. Uses node:fs, which Bun and Deno both provide.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
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
    if ((error as { code?: string }).code === 'EEXIST') return { key: readFileSync(file, 'utf8').trim(), created: false }
    throw error
  }
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true })
}
