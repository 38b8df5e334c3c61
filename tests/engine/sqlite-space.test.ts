/**
 * Disk given back on SQLite: the embedded file uses incremental auto_vacuum (a file made
 * before converts once when opened, keeping its data), and compact() returns the pages of
 * pruned rows to the file system.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { sqliteStore } from '../../adapters/sqlite/store.ts'
import { tempFiles } from '../helpers/tmp.ts'

describe('SQLite disk space', () => {
  const files = tempFiles('automaton.db')
  afterEach(() => files.remove())
  const fileIn = () => files.next()

  it('converts a file made without auto_vacuum once, keeping its rows', async () => {
    const path = fileIn()
    const old = new Database(path, { create: true })
    old.run('PRAGMA journal_mode = WAL')
    old.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    old.run("INSERT INTO notes (body) VALUES ('kept')")
    expect((old.query('PRAGMA auto_vacuum').get() as { auto_vacuum: number }).auto_vacuum).toBe(0)
    old.close()

    const store = sqliteStore({ path })
    expect(await store.get('PRAGMA auto_vacuum')).toEqual({ auto_vacuum: 2 })
    expect(await store.all('SELECT body FROM notes')).toEqual([{ body: 'kept' }])
    await store.close()
  })

  it('gives the pages of deleted rows back to the file system', async () => {
    const path = fileIn()
    const store = sqliteStore({ path })
    await store.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    await store.write(async (tx) => {
      for (let i = 0; i < 4000; i++) await tx.run('INSERT INTO blobs (body) VALUES ($1)', ['x'.repeat(2000)])
    })
    const pages = async () => Number((await store.get<{ page_count: number }>('PRAGMA page_count'))!.page_count)
    const full = await pages()
    await store.run('DELETE FROM blobs WHERE id > 400')
    expect(await pages()).toBe(full)
    await store.compact()
    const after = await pages()
    expect(after).toBeLessThan(full / 4)
    expect(statSync(path).size).toBeLessThan(after * 4096 * 1.5)
    await store.close()
  })
})
