/**
 * The backup file: one line naming the format, one line of JSON (when, which version, the
 * master keys sealed with the operator's passphrase, the database's size and SHA-256), then
 * the database file, gzip-compressed. Written and read as streams, so a large database never
 * sits in memory. node:fs, node:zlib and node:crypto, which Bun and Deno both provide.
 */
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, openSync, readSync, closeSync, statSync } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { Transform } from 'node:stream'
import { createGunzip, createGzip } from 'node:zlib'
import type { PassphraseSealed } from '../../core/security/passphrase.ts'

export const BACKUP_MAGIC = 'AUTOMATON-BACKUP/1'

export interface BackupHeader {
  createdAt: string
  version: string
  store: 'sqlite'
  /** The master keys as JSON `{ keys: [sealing key, …others] }`, sealed with the passphrase; bound to `database.sha256`. */
  masterKeys: PassphraseSealed
  database: { bytes: number; sha256: string; compression: 'gzip' }
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** Writes the backup file: the header, then the database gzip-compressed. */
export async function writeBackupFile(target: string, header: BackupHeader, database: string): Promise<void> {
  const out = createWriteStream(target, { mode: 0o600 })
  out.write(`${BACKUP_MAGIC}\n${JSON.stringify(header)}\n`)
  await pipeline(createReadStream(database), createGzip({ level: 6 }), out)
}

/** Reads the header of a backup file; throws when the file is not one. */
export function readBackupHeader(path: string): { header: BackupHeader; bodyOffset: number } {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(Math.min(64 * 1024, statSync(path).size))
    readSync(fd, buffer, 0, buffer.length, 0)
    const first = buffer.indexOf(10)
    const second = first < 0 ? -1 : buffer.indexOf(10, first + 1)
    if (first < 0 || second < 0 || buffer.subarray(0, first).toString('utf8') !== BACKUP_MAGIC)
      throw new Error('not an Automaton backup file')
    return {
      header: JSON.parse(buffer.subarray(first + 1, second).toString('utf8')) as BackupHeader,
      bodyOffset: second + 1,
    }
  } finally {
    closeSync(fd)
  }
}

/** Decompresses the database of a backup file to `target`; resolves to its SHA-256. */
export async function extractDatabase(path: string, bodyOffset: number, target: string): Promise<string> {
  const hash = createHash('sha256')
  const tap = new Transform({
    transform(chunk, _encoding, done) {
      hash.update(chunk as Buffer)
      done(null, chunk)
    },
  })
  await pipeline(
    createReadStream(path, { start: bodyOffset }),
    createGunzip(),
    tap,
    createWriteStream(target, { flags: 'wx', mode: 0o600 }),
  )
  return hash.digest('hex')
}
