/**
 * The store contract: what every Store adapter promises. Run against SQLite and Postgres by
 * store.test.ts, and against SQLite through node:sqlite on Deno by store-deno.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { forUpdate, isUniqueViolation, type Migration, serialOnly, type Store } from '../../core/ports/store.ts'
import { eventually } from '../helpers/eventually.ts'
import type { TestStore } from '../helpers/stores.ts'

const TEST_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'things',
    up: [
      'CREATE TABLE things (id TEXT PRIMARY KEY, n BIGINT, flag INTEGER NOT NULL DEFAULT 0, body TEXT)',
      'CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL)',
    ],
  },
  {
    version: 2,
    name: 'dialect specific',
    up: {
      sqlite: ["INSERT INTO counters (name, value) VALUES ('dialect', 1)"],
      postgres: ["INSERT INTO counters (name, value) VALUES ('dialect', 2)"],
    },
  },
]

/** `open` gives a fresh store of `kind` (SQLite files as any SQLite binding of the runtime makes them). */
export function describeStoreContract(kind: 'sqlite' | 'postgres', open: () => Promise<TestStore>) {
  describe(`store contract: ${kind}`, () => {
    let t: TestStore
    let store: Store

    beforeAll(async () => {
      t = await open()
      store = t.store
      expect(await store.migrate(TEST_MIGRATIONS)).toBe(2)
    })
    afterAll(async () => {
      await t.dispose()
    })

    it('names its dialect and applied the dialect-specific migration', async () => {
      expect(store.dialect).toBe(kind)
      const row = await store.get<{ value: number }>("SELECT value FROM counters WHERE name = 'dialect'")
      expect(row?.value).toBe(kind === 'sqlite' ? 1 : 2)
    })

    it('applies migrations once, even when two connections migrate at the same time', async () => {
      const other = t.reopen()
      const more: Migration[] = [
        ...TEST_MIGRATIONS,
        { version: 3, name: 'extra', up: ['CREATE TABLE extra (id TEXT PRIMARY KEY)'] },
      ]
      const applied = await Promise.all([store.migrate(more), other.migrate(more)])
      expect(applied.sort()).toEqual([0, 1])
      const versions = await store.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')
      expect(versions.map((v) => v.version)).toEqual([1, 2, 3])
    })

    it('round-trips millisecond timestamps, nulls, integer flags and JSON text', async () => {
      const at = Date.UTC(2026, 10, 22, 12, 30, 45, 123)
      await store.run('INSERT INTO things (id, n, flag, body) VALUES ($1, $2, $3, $4)', [
        'rt',
        at,
        true,
        JSON.stringify({ a: [1, 'x'] }),
      ])
      await store.run('INSERT INTO things (id, n, flag, body) VALUES ($1, $2, $3, $4)', ['rt2', null, false, null])
      const row = await store.get<{ n: number; flag: number; body: string }>(
        'SELECT n, flag, body FROM things WHERE id = $1',
        ['rt'],
      )
      expect(row).toEqual({ n: at, flag: 1, body: '{"a":[1,"x"]}' })
      const empty = await store.get<{ n: number | null; flag: number; body: string | null }>(
        'SELECT n, flag, body FROM things WHERE id = $1',
        ['rt2'],
      )
      expect(empty).toEqual({ n: null, flag: 0, body: null })
      const count = await store.get<{ c: number }>('SELECT COUNT(*) AS c FROM things WHERE id IN ($1, $2)', [
        'rt',
        'rt2',
      ])
      expect(count?.c).toBe(2)
    })

    it('returns undefined for a missing row and the changed-row count from run', async () => {
      expect(await store.get('SELECT * FROM things WHERE id = $1', ['nope'])).toBeUndefined()
      expect(await store.run('UPDATE things SET n = 1 WHERE id = $1', ['nope'])).toBe(0)
      expect(await store.run('UPDATE things SET n = 1 WHERE id IN ($1, $2)', ['rt', 'rt2'])).toBe(2)
    })

    it('write returns what its work returns, after the commit, and reads then see it', async () => {
      const value = await store.write(async (tx) => {
        await tx.run('INSERT INTO things (id, n) VALUES ($1, $2)', ['w1', 7])
        return (await tx.get<{ n: number }>('SELECT n FROM things WHERE id = $1', ['w1']))?.n
      })
      expect(value).toBe(7)
      expect((await store.get<{ n: number }>('SELECT n FROM things WHERE id = $1', ['w1']))?.n).toBe(7)
    })

    it('rolls back a failing write alone while the writes beside it in the same batch commit', async () => {
      const results = await Promise.allSettled([
        store.write((tx) => tx.run('INSERT INTO things (id) VALUES ($1)', ['batch-a'])),
        store.write(async (tx) => {
          await tx.run('INSERT INTO things (id) VALUES ($1)', ['batch-b'])
          throw new Error('changed my mind')
        }),
        store.write((tx) => tx.run('INSERT INTO things (id) VALUES ($1)', ['batch-c'])),
      ])
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
      expect((results[1] as PromiseRejectedResult).reason.message).toBe('changed my mind')
      const ids = await store.all<{ id: string }>("SELECT id FROM things WHERE id LIKE 'batch-%' ORDER BY id")
      expect(ids.map((r) => r.id)).toEqual(['batch-a', 'batch-c'])
    })

    it('reports unique violations in a way isUniqueViolation recognises', async () => {
      await store.run('INSERT INTO things (id) VALUES ($1)', ['dup'])
      const error = await store.run('INSERT INTO things (id) VALUES ($1)', ['dup']).catch((e) => e)
      expect(isUniqueViolation(error)).toBe(true)
      expect(isUniqueViolation(new Error('something else'))).toBe(false)
    })

    it('commits thousands of concurrent writes exactly once, and loses no update of a locked read-modify-write', async () => {
      await store.run("INSERT INTO counters (name, value) VALUES ('hits', 0), ('locked', 0)")
      const n = 3000
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          store.write(async (tx) => {
            await tx.run('INSERT INTO things (id, n) VALUES ($1, $2)', [`bulk-${i}`, i])
            await tx.run("UPDATE counters SET value = value + 1 WHERE name = 'hits'")
            const c = await tx.get<{ value: number }>(
              `SELECT value FROM counters WHERE name = 'locked'${forUpdate(store.dialect)}`,
            )
            await tx.run("UPDATE counters SET value = $1 WHERE name = 'locked'", [c!.value + 1])
          }),
        ),
      )
      const count = await store.get<{ c: number; s: number }>(
        "SELECT COUNT(*) AS c, SUM(n) AS s FROM things WHERE id LIKE 'bulk-%'",
      )
      expect(Number(count?.c)).toBe(n)
      expect(Number(count?.s)).toBe((n * (n - 1)) / 2)
      // A lost update under concurrent batches would leave either counter short.
      expect((await store.get<{ value: number }>("SELECT value FROM counters WHERE name = 'hits'"))?.value).toBe(n)
      expect((await store.get<{ value: number }>("SELECT value FROM counters WHERE name = 'locked'"))?.value).toBe(n)
    })

    it('commits concurrent writes of a batch with their own outcomes, and fails a bad one alone', async () => {
      await store.run("INSERT INTO counters (name, value) VALUES ('together', 0)")
      await store.run('INSERT INTO things (id, n) VALUES ($1, $2)', ['together-taken', -1])
      const n = 500
      const seen = new Set<boolean>()
      const outcomes = await Promise.allSettled(
        Array.from({ length: n }, (_, i) =>
          store.write(
            async (tx) => {
              seen.add(tx.concurrent === true)
              // Write 7 claims an id that exists: it alone must fail.
              await tx.run('INSERT INTO things (id, n) VALUES ($1, $2)', [
                i === 7 ? 'together-taken' : `together-${i}`,
                i,
              ])
              const row = await tx.get<{ value: number }>(
                "UPDATE counters SET value = value + 1 WHERE name = 'together' RETURNING value",
              )
              return `${i}:${row!.value > 0}`
            },
            { concurrent: true },
          ),
        ),
      )
      expect(outcomes.filter((o) => o.status === 'rejected').length).toBe(1)
      expect(isUniqueViolation((outcomes[7] as PromiseRejectedResult).reason)).toBe(true)
      expect((outcomes[3] as PromiseFulfilledResult<string>).value).toBe('3:true')
      const count = await store.get<{ c: number }>(
        "SELECT COUNT(*) AS c FROM things WHERE id LIKE 'together-%' AND id <> 'together-taken'",
      )
      expect(Number(count?.c)).toBe(n - 1)
      expect((await store.get<{ value: number }>("SELECT value FROM counters WHERE name = 'together'"))?.value).toBe(
        n - 1,
      )
      // Postgres runs them concurrently (at least on the first attempt); SQLite runs every write in turn.
      expect(seen.has(true)).toBe(kind === 'postgres')
    })

    it('runs a concurrent write that must lock a row again in turn, so no update is lost and nothing is written twice', async () => {
      await store.run("INSERT INTO counters (name, value) VALUES ('serial', 0)")
      const n = 300
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          store.write(
            async (tx) => {
              await tx.run('INSERT INTO things (id, n) VALUES ($1, $2)', [`serial-${i}`, i])
              serialOnly(tx)
              const c = await tx.get<{ value: number }>(
                `SELECT value FROM counters WHERE name = 'serial'${forUpdate(store.dialect)}`,
              )
              await tx.run("UPDATE counters SET value = $1 WHERE name = 'serial'", [c!.value + 1])
            },
            { concurrent: i % 2 === 0 },
          ),
        ),
      )
      const count = await store.get<{ c: number }>("SELECT COUNT(*) AS c FROM things WHERE id LIKE 'serial-%'")
      expect(Number(count?.c)).toBe(n)
      expect((await store.get<{ value: number }>("SELECT value FROM counters WHERE name = 'serial'"))?.value).toBe(n)
    })

    it('commits a write kept apart while the other writes wait on a row lock (Postgres), and like any other write on SQLite', async () => {
      await store.run("INSERT INTO counters (name, value) VALUES ('held', 0)")
      const apartWrite = () => store.write((tx) => tx.run("INSERT INTO things (id) VALUES ('apart')"), { apart: true })
      if (kind === 'sqlite') {
        await apartWrite()
        expect(await store.get("SELECT id FROM things WHERE id = 'apart'")).toEqual({ id: 'apart' })
        return
      }
      // Another process holds the row's lock in an open transaction.
      const other = t.reopen()
      let release!: () => void
      const held = new Promise<void>((resolve) => (release = resolve))
      let locked!: () => void
      const isLocked = new Promise<void>((resolve) => (locked = resolve))
      const holder = other.write(async (tx) => {
        await tx.run("UPDATE counters SET value = value + 1 WHERE name = 'held'")
        locked()
        await held
      })
      await isLocked
      // This process's line of batches now waits on that lock, and a plain write queues behind it.
      let blockedDone = false
      const blocked = store
        .write((tx) => tx.run("UPDATE counters SET value = value + 10 WHERE name = 'held'"))
        .then(() => (blockedDone = true))
      await eventually(async () => {
        const waiting = await store.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        return Number(waiting?.n) > 0
      }, 'the write to wait on the row lock')
      const plain = store.write((tx) => tx.run("INSERT INTO things (id) VALUES ('plain')"))
      // The bound only stops a write kept apart that waits too: it fails the assertion below.
      const apart = await Promise.race([
        apartWrite().then(() => 'committed'),
        Bun.sleep(3000).then(() => 'still waiting'),
      ])
      expect(apart).toBe('committed')
      expect(await store.get("SELECT id FROM things WHERE id = 'apart'")).toEqual({ id: 'apart' })
      expect(await store.get("SELECT id FROM things WHERE id = 'plain'")).toBeUndefined()
      expect(blockedDone).toBe(false)
      release()
      await Promise.all([holder, blocked, plain])
      expect((await store.get<{ value: number }>("SELECT value FROM counters WHERE name = 'held'"))?.value).toBe(11)
      expect(await store.get("SELECT id FROM things WHERE id = 'plain'")).toEqual({ id: 'plain' })
    })

    it('keeps what was committed when the store is closed and opened again', async () => {
      const second = t.reopen()
      await second.write((tx) => tx.run('INSERT INTO things (id, n) VALUES ($1, $2)', ['durable', 42]))
      await second.close()
      const third = t.reopen()
      expect((await third.get<{ n: number }>('SELECT n FROM things WHERE id = $1', ['durable']))?.n).toBe(42)
    })

    it('drains pending writes on close', async () => {
      const fourth = t.reopen()
      const pending = Array.from({ length: 50 }, (_, i) =>
        fourth.run('INSERT INTO things (id) VALUES ($1)', [`drain-${i}`]),
      )
      await fourth.close()
      await Promise.all(pending)
      const count = await store.get<{ c: number }>("SELECT COUNT(*) AS c FROM things WHERE id LIKE 'drain-%'")
      expect(Number(count?.c)).toBe(50)
    })

    it('answers ping while the database is reachable', async () => {
      await store.ping()
    })
  })
}
