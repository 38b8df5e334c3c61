/**
 * The Postgres store while its database cannot be reached (a proxy of the test's own is cut; the
 * shared server never stops): queries fail at once with the 503 a client retries instead of
 * queueing for a connection, connection attempts back off, and the store goes on by itself once
 * the database answers again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import postgres from 'postgres'
import { postgresStore } from '../../adapters/postgres/store.ts'
import type { Store } from '../../core/ports/store.ts'
import { recordingLogger } from '../helpers/system.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'
import { eventually } from '../helpers/eventually.ts'

/** What a query came to: 'ok', or the status (or code) it failed with, or 'hanging' after `ms`. */
const outcome = (query: Promise<unknown>, ms = 5000) =>
  Promise.race([
    query.then(
      () => 'ok',
      (error: { status?: number; code?: string }) => error.status ?? error.code ?? String(error),
    ),
    new Promise((resolve) => setTimeout(() => resolve('hanging'), ms)),
  ])

/** How many of the store's connections are running `pg_sleep`, asked of the database directly (not through the proxy). */
async function sleepingQueries(): Promise<number> {
  const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} })
  try {
    const [row] = await admin`select count(*)::int as n from pg_stat_activity
      where application_name = 'outage-test' and state = 'active' and query like '%pg_sleep%'`
    return row.n as number
  } finally {
    await admin.end()
  }
}

const answers = (store: Store) => () =>
  store.ping().then(
    () => true,
    () => false,
  )

if (!TEST_DATABASE_URL) warnSkipped('the Postgres outage suite', 'AUTOMATON_TEST_DATABASE_URL')
else {
  describe('the Postgres store while its database is unreachable', () => {
    let db: Awaited<ReturnType<typeof freshPostgresUrl>>
    let proxy: TcpProxy
    let store: Store
    let logger: ReturnType<typeof recordingLogger>

    beforeEach(async () => {
      db = await freshPostgresUrl()
      proxy = await startTcpProxy(db.url)
      logger = recordingLogger()
      store = postgresStore({ url: proxy.via(db.url), poolSize: 4, applicationName: 'outage-test', logger })
      await store.write((tx) => tx.run('CREATE TABLE outage_probe (n INTEGER NOT NULL)'))
    })
    afterEach(async () => {
      await proxy.restore()
      await store.close()
      await proxy.close()
      await db.drop()
    })

    it('refuses reads, writes and pings with a 503 at once, and answers again once the database is back', async () => {
      await proxy.cut()
      // The first query finds out (its connection is refused); every later one is refused without trying.
      expect(await outcome(store.get('SELECT 1'))).toBe(503)
      const refused = await Promise.all([
        ...Array.from({ length: 20 }, () => outcome(store.all('SELECT n FROM outage_probe'))),
        ...Array.from({ length: 20 }, (_, i) =>
          outcome(store.write((tx) => tx.run('INSERT INTO outage_probe (n) VALUES ($1)', [i]))),
        ),
        outcome(store.ping()),
      ])
      expect(new Set(refused)).toEqual(new Set([503]))
      const unreachable = logger.lines.filter((line) => line.includes('database unreachable'))
      expect(unreachable).toHaveLength(1)

      await proxy.restore()
      await eventually(answers(store), 'the store answering again')
      await store.write((tx) => tx.run('INSERT INTO outage_probe (n) VALUES (1)'))
      expect(await store.all('SELECT n FROM outage_probe')).toEqual([{ n: 1 }])
      expect(logger.lines.some((line) => line.includes('database reachable again'))).toBe(true)
    })

    it('fails queries within the connect timeout when the database does not answer at all', async () => {
      // A host gone off the network: connections are neither accepted nor refused.
      await proxy.cut('blackhole')
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => outcome(store.get('SELECT 1'))))
      expect(new Set(outcomes)).toEqual(new Set([503]))
      expect(await outcome(store.ping(), 200)).toBe(503)
    })

    it('refuses at once the queries still waiting for a connection when the database goes away', async () => {
      // Every connection of the pool busy, and more queries waiting for one.
      const busy = Array.from({ length: 4 }, () =>
        outcome(
          store.write((tx) => tx.run('SELECT pg_sleep(30)')).catch(() => {}),
          15_000,
        ),
      )
      const reads = Array.from({ length: 4 }, () => outcome(store.get('SELECT pg_sleep(30)'), 15_000))
      await eventually(async () => (await sleepingQueries()) >= 4, 'every connection of the pool to be busy')
      const waiting = Array.from({ length: 30 }, () => outcome(store.get('SELECT 1'), 15_000))
      await proxy.cut()
      expect(new Set(await Promise.all([...reads, ...waiting]))).toEqual(new Set([503]))
      await Promise.all(busy)
    })

    it('backs off its connection attempts while the database is gone', async () => {
      // Accepted and reset at once: each attempt reaches the proxy and is counted.
      await proxy.cut('reset')
      const before = proxy.refused
      const stop = Date.now() + 3000
      // Requests, heartbeats and loops keep asking all the while: a load paced over three seconds,
      // whose attempts the backoff (the store's own timing) keeps to a handful.
      const load = (async () => {
        while (Date.now() < stop) {
          await Promise.all([
            store.get('SELECT 1').catch(() => {}),
            store.write((tx) => tx.run('SELECT 1')).catch(() => {}),
          ])
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      })()
      await load
      // Unbounded, this was one attempt per query: hundreds a second. Backing off, a handful.
      expect(proxy.refused - before).toBeLessThan(30)
      await proxy.restore()
      await eventually(answers(store), 'the store answering again')
    })

    it('does not count a terminated connection of a database that answers as an outage', async () => {
      await Promise.all(Array.from({ length: 4 }, () => store.get('SELECT 1')))
      const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} })
      try {
        await admin`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'outage-test'`
      } finally {
        await admin.end()
      }
      // Queries on the terminated connections fail (503); the probe that follows finds the database.
      await Promise.all(Array.from({ length: 8 }, () => store.get('SELECT 1').catch(() => {})))
      await eventually(answers(store), 'the store answering again', 3000)
      expect(await outcome(store.write((tx) => tx.run('INSERT INTO outage_probe (n) VALUES (2)')))).toBe('ok')
      expect(logger.lines.filter((line) => line.includes('database unreachable'))).toEqual([])
    })
  })
}
