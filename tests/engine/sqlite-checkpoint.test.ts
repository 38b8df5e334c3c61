/**
 * The server's embedded store copies its write-ahead log into the database file on a worker
 * thread (adapters/sqlite/checkpointer.ts): what is committed reaches the file while the store
 * keeps serving, without the committing call doing it, and what it committed is there when the file is opened again.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { startCheckpointer } from '../../adapters/sqlite/checkpointer.ts'
import { sqliteStore } from '../../adapters/sqlite/store.ts'
import { until } from '../helpers/process.ts'
import { tempFiles } from '../helpers/tmp.ts'

const ROW = 'x'.repeat(4000)

describe('SQLite checkpoints on a worker thread', () => {
  const files = tempFiles('automaton.db')
  afterEach(() => files.remove())
  const fileIn = () => files.next()

  it('copies what a writer that never checkpoints itself commits into the database file', async () => {
    const path = fileIn()
    const writer = new Database(path, { create: true })
    writer.run('PRAGMA journal_mode = WAL')
    writer.run('PRAGMA wal_autocheckpoint = 0')
    writer.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    const checkpointer = startCheckpointer({ path, synchronous: 'FULL', intervalMs: 10 })
    await until('the checkpoint thread', async () => checkpointer.active, 15_000)
    const before = statSync(path).size
    const insert = writer.prepare('INSERT INTO blobs (body) VALUES (?)')
    for (let b = 0; b < 100; b++) {
      writer.transaction(() => {
        for (let i = 0; i < 20; i++) insert.run(`${b}-${i}-${ROW}`)
      })()
      checkpointer.committed()
      // Paces the writes so that the checkpoint thread runs between them, as it does under a real load.
      await Bun.sleep(1)
    }
    // About 8 MB went into the log; the file grows only by checkpoints, and only the worker makes them.
    await until('the database file to grow', async () => statSync(path).size > before + 7 * 2 ** 20, 15_000)
    expect(checkpointer.rounds).toBeGreaterThan(0)
    await checkpointer.stop()
    expect(checkpointer.active).toBe(false)
    writer.close()
  })

  it('serves the store with it, and every row is there when the file is opened again', async () => {
    const path = fileIn()
    const store = sqliteStore({ path, backgroundCheckpoint: true })
    await store.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    for (let b = 0; b < 50; b++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.run('INSERT INTO blobs (body) VALUES ($1)', [`${b}-${i}-${ROW}`])),
      )
    }
    expect(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM blobs'))!.n)).toBe(1000)
    await store.close()
    const db = new Database(path, { readonly: true })
    expect((db.query('SELECT COUNT(*) AS n FROM blobs').get() as { n: number }).n).toBe(1000)
    db.close()
  })
})
