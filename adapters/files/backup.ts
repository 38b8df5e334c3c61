/**
 * `automaton backup create` and `restore` for the embedded store: a consistent snapshot of the
 * live database (taken by the `snapshot` the caller passes, SQLite's VACUUM INTO) with the
 * master keys sealed by a passphrase, and the way back into an empty data dir.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openWithPassphrase, sealWithPassphrase } from '../../core/security/passphrase.ts'
import { type BackupHeader, extractDatabase, readBackupHeader, sha256OfFile, writeBackupFile } from './backup-file.ts'
import { writeMasterKey } from './master-key.ts'

export class BackupError extends Error {
  override name = 'BackupError'
}

export interface CreateBackupOptions {
  /** The live database file. */
  database: string
  /** Copies the live database consistently to `target`; tells which key seals its secrets. */
  snapshot(database: string, target: string): { sealingKeyId: string | null }
  /** Every master key (base64) with its id. */
  keys: ReadonlyArray<{ id: string; key: string }>
  passphrase: string
  version: string
  now: Date
}

export async function createBackup(
  file: string,
  options: CreateBackupOptions,
): Promise<{ file: string; bytes: number; databaseBytes: number }> {
  if (!existsSync(options.database))
    throw new BackupError(
      `no database at ${options.database}: set AUTOMATON_DATA_DIR to the data dir of the installation`,
    )
  const work = join(tmpdir(), `automaton-backup-${crypto.randomUUID()}`)
  mkdirSync(work, { recursive: true, mode: 0o700 })
  try {
    const copy = join(work, 'automaton.db')
    const { sealingKeyId } = options.snapshot(options.database, copy)
    const sha256 = await sha256OfFile(copy)
    // The key that seals the snapshot's secrets first: a restore makes it the data dir's key.
    const keys = [...options.keys]
      .sort((a, b) => Number(b.id === sealingKeyId) - Number(a.id === sealingKeyId))
      .map((k) => k.key)
    const header: BackupHeader = {
      createdAt: options.now.toISOString(),
      version: options.version,
      store: 'sqlite',
      masterKeys: await sealWithPassphrase(JSON.stringify({ keys }), options.passphrase, sha256),
      database: { bytes: statSync(copy).size, sha256, compression: 'gzip' },
    }
    await writeBackupFile(file, header, copy)
    return { file, bytes: statSync(file).size, databaseBytes: header.database.bytes }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** Restores into `dataDir`, which must be missing or empty; nothing is left behind when it fails. */
export async function restoreBackup(
  file: string,
  dataDir: string,
  passphrase: string,
): Promise<{ dataDir: string; createdAt: string; databaseBytes: number }> {
  if (!existsSync(file)) throw new BackupError(`no backup file at ${file}`)
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0)
    throw new BackupError(`${dataDir} is not empty: restore into a new or empty directory`)
  let parsed: ReturnType<typeof readBackupHeader>
  try {
    parsed = readBackupHeader(file)
  } catch (error) {
    throw new BackupError(`${file}: ${(error as Error).message}`)
  }
  const { header, bodyOffset } = parsed
  const { keys } = JSON.parse(await openWithPassphrase(header.masterKeys, passphrase, header.database.sha256)) as {
    keys: string[]
  }
  const created = !existsSync(dataDir)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  try {
    const sha256 = await extractDatabase(file, bodyOffset, join(dataDir, 'automaton.db'))
    if (sha256 !== header.database.sha256)
      throw new BackupError('the database in the backup does not match its checksum: the file is damaged')
    writeMasterKey(dataDir, keys[0], keys.slice(1))
  } catch (error) {
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { force: true })
    if (created) rmSync(dataDir, { recursive: true, force: true })
    throw error
  }
  return { dataDir, createdAt: header.createdAt, databaseBytes: header.database.bytes }
}
