/** `backup create` and `backup restore`: the embedded store and its master key, sealed by a passphrase. */
import { join } from 'node:path'
import { type Config, ConfigError } from '../../../core/config.ts'
import { decodeMasterKey, MasterKeyError, masterKeyId } from '../../../core/security/secret-box.ts'
import { createBackup, restoreBackup } from '../../files/backup.ts'
import { readMasterKeys } from '../../files/master-key.ts'
import { UsageError } from '../args.ts'
import type { CliHost, Command } from '../host.ts'
import { print, readPassphrase } from '../io.ts'

/** `backup create`: the embedded store only; Postgres has pg_dump (docs/operations.md). */
async function create(host: CliHost, config: Config, file: string, passphrase: string) {
  if (config.databaseUrl)
    throw new ConfigError(
      'backup create covers the embedded SQLite store; on Postgres use pg_dump and keep the master key (see docs/operations.md)',
    )
  const raw = config.masterKey
    ? [config.masterKey, ...(config.masterKeyPrevious ? [config.masterKeyPrevious] : [])]
    : readMasterKeys(config.dataDir)
  if (raw.length === 0)
    throw new MasterKeyError(
      `no master key: set AUTOMATON_MASTER_KEY or point AUTOMATON_DATA_DIR at the installation's data dir`,
    )
  const keys = await Promise.all(raw.map(async (key) => ({ key, id: await masterKeyId(decodeMasterKey(key)) })))
  // Each runtime's SQLite binding: bun:sqlite on Bun, node:sqlite on Deno (the same file format).
  const snapshot =
    host.runtime === 'bun'
      ? (await import('../../sqlite/backup-bun.ts')).snapshotOnBun
      : (await import('../../sqlite/backup-node.ts')).snapshotOnNode
  return createBackup(file, {
    database: join(config.dataDir, 'automaton.db'),
    snapshot,
    keys,
    passphrase,
    version: host.version,
    now: new Date(),
  })
}

export const backup: Command = async ({ sub, rest, flags, config, host }) => {
  if (sub === 'create') {
    if (!rest[0]) throw new UsageError('backup create needs the file to write')
    print(await create(host, config, rest[0], await readPassphrase(flags)))
    return 0
  }
  if (sub === 'restore') {
    if (!rest[0]) throw new UsageError('backup restore needs the backup file')
    if (!flags['data-dir']) throw new UsageError('backup restore needs --data-dir <dir>, a new or empty directory')
    print(await restoreBackup(rest[0], flags['data-dir'], await readPassphrase(flags)))
    return 0
  }
  throw new UsageError(`unknown command "backup ${sub ?? ''}"`)
}
