/**
 * Disk space on SQLite. Given back: the embedded file uses incremental auto_vacuum (a file made
 * before converts once when opened, keeping its data), and compact() returns the pages of
 * pruned rows to the file system. Running out: see 'a full disk' below.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { startCheckpointer } from '../../adapters/sqlite/checkpointer.ts'
import { sqliteStore } from '../../adapters/sqlite/store.ts'
import { StoreFullError } from '../../core/errors.ts'
import { createJsonLogger } from '../../core/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { until } from '../helpers/process.ts'
import { openTestSystem } from '../helpers/system.ts'
import { mountTmpfs, type Tmpfs, tmpfsRefusal } from '../helpers/tmpfs.ts'
import { tempFiles } from '../helpers/tmp.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

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

/**
 * A full disk under the embedded store: writes are refused with StoreFullError (503, Retry-After,
 * the error body), reads and the rest of the process go on, the log says so about once a second,
 * and everything writes again as soon as there is room. Filling the disk is simulated with
 * `max_page_count` (the file may not grow: SQLite answers SQLITE_FULL, as on a full disk); where
 * a tmpfs can be mounted, the same is checked on a real full disk, checkpoint thread included.
 */
describe('a full disk under SQLite', () => {
  const files = tempFiles('automaton.db')
  afterEach(() => files.remove())
  const BLOB = 'x'.repeat(50_000)

  /** Lets the database file grow no more than it is now: the next write that needs a page fails as on a full disk. */
  async function fillUp(store: Store) {
    const { page_count: pages } = (await store.get<{ page_count: number }>('PRAGMA page_count'))!
    await store.run(`PRAGMA max_page_count = ${pages}`)
  }
  const makeRoom = (store: Store) => store.run('PRAGMA max_page_count = 1073741823')

  it('refuses writes with a 503 error while the disk is full, keeps reading, and writes again once there is room', async () => {
    const lines: Array<Record<string, unknown>> = []
    const store = sqliteStore({
      path: files.next(),
      logger: createJsonLogger('info', (line) => lines.push(JSON.parse(line))),
    })
    await store.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    await store.run('INSERT INTO notes (body) VALUES ($1)', ['kept'])
    await fillUp(store)

    // One batch of writes: each is refused, none is tried again alone.
    const refused = await Promise.allSettled(
      Array.from({ length: 50 }, () => store.run('INSERT INTO notes (body) VALUES ($1)', [BLOB])),
    )
    for (const outcome of refused) {
      expect(outcome.status).toBe('rejected')
      const error = (outcome as PromiseRejectedResult).reason
      expect(error).toBeInstanceOf(StoreFullError)
      expect(error.status).toBe(503)
      expect(Number(error.headers['retry-after'])).toBeGreaterThan(0)
    }
    expect(await store.all('SELECT body FROM notes')).toEqual([{ body: 'kept' }])
    // Not ready while nothing can be written.
    await expect(store.ping()).rejects.toBeInstanceOf(StoreFullError)
    expect(lines.filter((l) => String(l.msg).startsWith('the disk is full')).length).toBe(1)

    await makeRoom(store)
    await store.run('INSERT INTO notes (body) VALUES ($1)', [BLOB])
    // Ready again once writes have gone through for a moment.
    await until(
      'the store to be ready',
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      5000,
    )
    await store.run('INSERT INTO notes (body) VALUES ($1)', [BLOB])
    expect(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM notes'))!.n)).toBe(3)
    expect(lines.some((l) => l.msg === 'the disk has room again: writes are stored')).toBe(true)
    await store.close()
  })

  it('answers a request that needs the disk 503 with Retry-After and the error body, logs about once a second, and serves again once there is room', async () => {
    const lines: Array<Record<string, unknown>> = []
    const t = await openTestSystem(
      'sqlite',
      {},
      { logger: createJsonLogger('info', (line) => lines.push(JSON.parse(line))) },
    )
    try {
      const w = await createLive(t, {
        definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
      })
      await fillUp(t.system.store)
      const from = lines.length
      const started = performance.now()
      const answers = []
      for (let i = 0; i < 200; i++)
        answers.push(await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { blob: BLOB } } }))
      const seconds = (performance.now() - started) / 1000
      for (const r of answers) {
        expect(r.status).toBe(503)
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
        expect(r.body).toEqual({
          code: 503,
          message: expect.stringContaining('the disk is full'),
          details: [],
          requestId: r.headers.get('x-request-id'),
        })
      }
      // Reads still answer.
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).status).toBe(200)
      const during = lines.slice(from).filter((l) => l.level === 'warn' || l.level === 'error')
      expect(during.filter((l) => l.msg === 'unhandled error')).toEqual([])
      // Two hundred refusals, a line a second: the first at once, then one a second with a count.
      const full = during.filter((l) => String(l.msg).startsWith('the disk is full'))
      expect(full.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1)
      expect(full.slice(1).every((l) => Number(l.repeated) > 0)).toBe(true)

      await makeRoom(t.system.store)
      const r = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { blob: BLOB } } })
      expect(r.status).toBe(200)
      expect((await waitForRun(t, r.body.data.runId)).status).toBe('success')
      await until('ready again', async () => (await t.call('GET', '/readyz', { key: null })).status === 200, 5000)
    } finally {
      await t.close()
    }
  })
})

const noTmpfs = await tmpfsRefusal()
if (noTmpfs) console.warn(`\n!!!!! SKIPPED: SQLite on a really full disk — ${noTmpfs} !!!!!\n`)

describe.skipIf(Boolean(noTmpfs))('SQLite on a really full disk (a tmpfs of its own)', () => {
  let fs: Tmpfs | null = null
  afterEach(async () => {
    await fs?.unmount()
    fs = null
  })
  const mount = async (sizeMb: number) => {
    const mounted = await mountTmpfs(sizeMb)
    if (!mounted.fs) throw new Error(mounted.reason)
    fs = mounted.fs
    return mounted.fs
  }

  it('keeps the checkpoint thread while the disk is full, and checkpoints again once space is freed', async () => {
    const disk = await mount(24)
    const path = join(disk.path, 'automaton.db')
    const writer = new Database(path, { create: true })
    writer.run('PRAGMA journal_mode = WAL')
    writer.run('PRAGMA wal_autocheckpoint = 0')
    writer.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    const lines: Array<Record<string, unknown>> = []
    const checkpointer = startCheckpointer({
      path,
      synchronous: 'FULL',
      intervalMs: 10,
      logger: createJsonLogger('info', (line) => lines.push(JSON.parse(line))),
    })
    await until('the checkpoint thread', async () => checkpointer.active, 15_000)
    // About 4 MB in the log that the database file has not received yet.
    const insert = writer.prepare('INSERT INTO blobs (body) VALUES (?)')
    writer.transaction(() => {
      for (let i = 0; i < 1000; i++) insert.run(`${i}-${'y'.repeat(4000)}`)
    })()
    const before = statSync(path).size
    disk.fill()
    checkpointer.committed()
    // The checkpoint cannot grow the file: the thread says so and waits, it does not stop.
    await until('the checkpoint to stall', async () => checkpointer.stalled, 10_000)
    const rounds = checkpointer.rounds
    expect(checkpointer.active).toBe(true)
    expect(lines.some((l) => String(l.msg).startsWith("the store's checkpoint thread cannot write"))).toBe(true)
    expect(lines.some((l) => String(l.msg).startsWith("the store's checkpoint thread stopped"))).toBe(false)

    disk.free()
    await until(
      'a checkpoint after space was freed',
      async () => checkpointer.rounds > rounds && !checkpointer.stalled,
      10_000,
    )
    expect(statSync(path).size).toBeGreaterThan(before + 3 * 2 ** 20)
    expect(lines.some((l) => l.msg === "the store's checkpoint thread writes again")).toBe(true)
    await checkpointer.stop()
    writer.close()
  })

  it('answers 503 and is not ready while the disk is full, and serves the next request once space is freed', async () => {
    const disk = await mount(48)
    const t = await openTestSystem('sqlite', { AUTOMATON_DATA_DIR: disk.path, AUTOMATON_SQLITE_SYNCHRONOUS: 'full' })
    try {
      const w = await createLive(t, {
        definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
      })
      disk.fill()
      // What still fits in the log's file is written (it is reused, not grown): big runs do not.
      let refused = await t.call('POST', `/v1/workflows/${w.id}/run`, {
        body: { payload: { blob: 'b'.repeat(200_000) } },
      })
      for (let i = 0; i < 100 && refused.status === 200; i++)
        refused = await t.call('POST', `/v1/workflows/${w.id}/run`, {
          body: { payload: { blob: 'b'.repeat(200_000) } },
        })
      expect(refused.status).toBe(503)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(refused.body).toMatchObject({
        code: 503,
        message: expect.stringContaining('the disk is full'),
        details: [],
      })
      expect((await t.call('GET', '/readyz', { key: null })).status).toBe(503)

      disk.free()
      // The next request writes: no waiting for anything.
      const r = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })
      expect(r.status).toBe(200)
      expect((await waitForRun(t, r.body.data.runId)).status).toBe('success')
      await until('ready again', async () => (await t.call('GET', '/readyz', { key: null })).status === 200, 5000)
    } finally {
      await t.close()
    }
  })

  it('refuses writes with StoreFullError on a full disk and takes them again once space is freed', async () => {
    const disk = await mount(24)
    const store = sqliteStore({
      path: join(disk.path, 'automaton.db'),
      backgroundCheckpoint: true,
      backgroundSync: true,
    })
    await store.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    await store.run('INSERT INTO blobs (body) VALUES ($1)', ['kept'])
    disk.fill()
    const refused = await Promise.allSettled(
      Array.from({ length: 20 }, () => store.run('INSERT INTO blobs (body) VALUES ($1)', ['z'.repeat(100_000)])),
    )
    expect(refused.every((r) => r.status === 'rejected' && r.reason instanceof StoreFullError)).toBe(true)
    expect(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM blobs'))!.n)).toBe(1)
    await expect(store.ping()).rejects.toBeInstanceOf(StoreFullError)

    disk.free()
    await store.run('INSERT INTO blobs (body) VALUES ($1)', ['z'.repeat(100_000)])
    await until(
      'the store to be ready',
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      5000,
    )
    expect(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM blobs'))!.n)).toBe(2)
    await store.close()
  })
})
