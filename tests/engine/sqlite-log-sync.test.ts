/**
 * The server's embedded store flushes its write-ahead log after commits, off the event loop's
 * thread (adapters/sqlite/log-sync.ts): a write is acknowledged only once a flush that began
 * after its commit has finished, so an acknowledged write is on disk as with synchronous=FULL.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { Database } from 'bun:sqlite'
import { type Flusher, walFlusher } from '../../adapters/sqlite/log-sync.ts'
import { sqliteStore } from '../../adapters/sqlite/store.ts'
import { until } from '../helpers/process.ts'
import { settlesAtOnce } from '../helpers/settled.ts'
import { tempFiles } from '../helpers/tmp.ts'

/** A flusher whose flushes finish only when the test lets them (or fail when it says so). */
function heldFlusher() {
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = []
  let started = 0
  const flusher: Flusher = {
    flush: () =>
      new Promise<void>((resolve, reject) => {
        started++
        pending.push({ resolve, reject })
      }),
    async close() {},
  }
  return {
    flusher,
    get started() {
      return started
    },
    finish: () => pending.shift()!.resolve(),
    fail: (message: string) => pending.shift()!.reject(new Error(message)),
  }
}

/** Whether a promise has settled yet, read without waiting for it. */
function watch(p: Promise<unknown>) {
  const w = { settled: false }
  p.then(
    () => (w.settled = true),
    () => (w.settled = true),
  )
  return w
}

describe('SQLite log flushed off the event loop', () => {
  const files = tempFiles('automaton.db')
  afterEach(() => files.remove())

  /** The server's store with a held flusher, and a table t whose creation was flushed. */
  async function withTable() {
    const held = heldFlusher()
    const store = sqliteStore({ path: files.next(), backgroundSync: true, logFlusher: held.flusher })
    const create = store.run('CREATE TABLE t (v TEXT NOT NULL)')
    await until('the first flush', async () => held.started === 1)
    held.finish()
    await create
    return { held, store }
  }

  it('acknowledges a write only once a flush that began after its commit has finished', async () => {
    const { held, store } = await withTable()

    const first = store.run("INSERT INTO t (v) VALUES ('a')")
    const firstAcked = watch(first)
    await until('the flush of the first commit', async () => held.started === 2)
    // Committed (a reader sees it), not acknowledged: the flush is still running.
    expect((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM t'))!.n).toBe(1)
    expect(firstAcked.settled).toBe(false)

    // Committed while that flush runs: the flush in progress does not cover it.
    const second = store.run("INSERT INTO t (v) VALUES ('b')")
    const secondAcked = watch(second)
    await until(
      'the second commit',
      async () => (await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM t'))!.n === 2,
    )
    held.finish()
    expect(await first).toBe(1)
    expect(secondAcked.settled).toBe(false)
    await until('the flush of the second commit', async () => held.started === 3)
    held.finish()
    expect(await second).toBe(1)
    await store.close()
  })

  it('fails the writes a failed flush covered, and goes on with the next ones', async () => {
    const { held, store } = await withTable()

    const lost = store.run("INSERT INTO t (v) VALUES ('a')")
    await until('its flush', async () => held.started === 2)
    held.fail('EIO: the disk went away')
    await expect(lost).rejects.toThrow('EIO: the disk went away')

    const next = store.run("INSERT INTO t (v) VALUES ('b')")
    await until('the next flush', async () => held.started === 3)
    held.finish()
    expect(await next).toBe(1)
    await store.close()
  })

  it("flushes the -wal file for the server's store, and every acknowledged row is in the file when it is opened again", async () => {
    const path = files.next()
    const wal = walFlusher(path)
    let flushes = 0
    const counting: Flusher = { flush: () => (flushes++, wal.flush()), close: () => wal.close() }
    const store = sqliteStore({ path, backgroundSync: true, backgroundCheckpoint: true, logFlusher: counting })
    await store.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
    for (let b = 0; b < 20; b++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.run('INSERT INTO t (v) VALUES ($1)', [`${b}-${i}`])))
    }
    // At least one flush per awaited round; a round's writes share theirs.
    expect(flushes).toBeGreaterThanOrEqual(21)
    expect(flushes).toBeLessThan(21 * 50)
    await store.close()
    const db = new Database(path, { readonly: true })
    expect((db.query('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(1000)
    db.close()
  })

  it('flushes nothing itself when the store is not asked to be durable on power loss (synchronous normal)', async () => {
    const held = heldFlusher()
    const store = sqliteStore({
      path: files.next(),
      synchronous: 'normal',
      backgroundSync: true,
      logFlusher: held.flusher,
    })
    await store.run('CREATE TABLE t (v TEXT NOT NULL)')
    expect(await store.run("INSERT INTO t (v) VALUES ('a')")).toBe(1)
    expect(held.started).toBe(0)
    await store.close()
  })

  it('closes only after the flushes in progress have finished', async () => {
    const held = heldFlusher()
    const store = sqliteStore({ path: files.next(), backgroundSync: true, logFlusher: held.flusher })
    const create = store.run('CREATE TABLE t (v TEXT NOT NULL)')
    await until('the flush', async () => held.started === 1)
    const order: string[] = []
    const closing = store.close().then(() => order.push('closed'))
    // A close that did not wait would end in the microtasks already queued (its steps are calls
    // into SQLite, no timer and no I/O); this one waits for the held flush.
    expect(await settlesAtOnce(closing)).toBe(false)
    order.push('flushed')
    held.finish()
    await create
    await closing
    expect(order).toEqual(['flushed', 'closed'])
  })
})
