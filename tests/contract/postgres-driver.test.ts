/**
 * The Postgres driver as patched at install (patches/postgres+3.4.9.patch): a connection whose
 * backend went away answers its next queries with a catchable CONNECTION_CLOSED, instead of
 * throwing from a timer callback where nothing can catch it (which killed `serve` when Postgres
 * restarted) or leaving them waiting for ever. And the store on top: a write that meets the
 * outage is refused with 503, a batch whose commit answer was lost never runs twice, and the
 * store goes on once its connections are back.
 */
import { describe, expect, it } from 'bun:test'
import postgres from 'postgres'
import { postgresStore } from '../../adapters/postgres/store.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'

const settled = (query: PromiseLike<unknown>) =>
  Promise.race([
    Promise.resolve(query).then(
      () => 'answered',
      (error: { code?: string }) => error.code ?? String(error),
    ),
    new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5000)),
  ])

const url = TEST_DATABASE_URL
if (!url) warnSkipped('the Postgres driver suite', 'AUTOMATON_TEST_DATABASE_URL')
else {
  describe('the Postgres driver when its backend goes away', () => {
    it('settles queries on a reserved connection whose backend was terminated with a catchable error', async () => {
      const uncaught: unknown[] = []
      const onUncaught = (error: unknown) => uncaught.push(error)
      process.on('uncaughtException', onUncaught)
      const sql = postgres(url, { max: 2, onnotice: () => {} })
      const killer = postgres(url, { max: 1, onnotice: () => {} })
      try {
        const reserved = await sql.reserve()
        const [{ pid }] = await reserved`select pg_backend_pid() as pid`
        await killer`select pg_terminate_backend(${pid})`
        // Unpatched, the second query threw "null is not an object (evaluating 'socket.write')"
        // from a setImmediate callback: an uncaught exception that ends the process.
        expect(await settled(reserved`select 1`)).toMatch(/^(ECONNRESET|CONNECTION_CLOSED)$/)
        expect(await settled(reserved`select 1`)).toBe('CONNECTION_CLOSED')
        expect(await settled(reserved`select 1`)).toBe('CONNECTION_CLOSED')
        // The pool itself still answers; a query's round trip and a turn of the event loop after
        // it, and the callbacks the closed socket queued before have run.
        expect([...(await sql`select 2 as two`)]).toEqual([{ two: 2 }])
        await new Promise((resolve) => setImmediate(resolve))
        expect(uncaught).toEqual([])
      } finally {
        process.off('uncaughtException', onUncaught)
        await sql.end({ timeout: 1 })
        await killer.end({ timeout: 1 })
      }
    })

    it('keeps a store working after every one of its connections was terminated under load', async () => {
      const db = await freshPostgresUrl()
      const store = postgresStore({ url: db.url, poolSize: 4, applicationName: 'driver-test' })
      const killer = postgres(url, { max: 1, onnotice: () => {} })
      const uncaught: unknown[] = []
      const onUncaught = (error: unknown) => uncaught.push(error)
      process.on('uncaughtException', onUncaught)
      try {
        await store.write((tx) => tx.run('CREATE TABLE driver_probe (n INTEGER NOT NULL)'))
        let n = 0
        const load = Array.from({ length: 8 }, async () => {
          const outcomes: Array<{ value: number; ok: boolean; status?: number }> = []
          for (let i = 0; i < 40; i++) {
            const value = n++
            const outcome = await store
              .write((tx) => tx.run('INSERT INTO driver_probe (n) VALUES ($1)', [value]))
              .then(
                () => ({ value, ok: true }),
                (error: { status?: number }) => ({ value, ok: false, status: error.status }),
              )
            outcomes.push(outcome)
          }
          return outcomes
        })
        // The load under way a moment (pacing the fault, not a wait to assert on), then every connection ends.
        await new Promise((resolve) => setTimeout(resolve, 20))
        await killer`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'driver-test'`
        const outcomes = (await Promise.all(load)).flat()
        expect(outcomes).toHaveLength(320)
        expect(uncaught).toEqual([])
        // A write that met the outage is refused as the 503 a client retries, never anything else.
        expect(outcomes.filter((o) => !o.ok && o.status !== 503)).toEqual([])
        // Every acknowledged write is there, none twice (a write whose commit answer was lost may
        // be there too: the client cannot tell, which is why clients resend with an id).
        const stored = (await store.all<{ n: number }>('SELECT n FROM driver_probe')).map((r) => Number(r.n))
        expect(new Set(stored).size).toBe(stored.length)
        const missing = outcomes.filter((o) => o.ok && !stored.includes(o.value))
        expect(missing).toEqual([])
        await store.write((tx) => tx.run('INSERT INTO driver_probe (n) VALUES (-1)'))
      } finally {
        process.off('uncaughtException', onUncaught)
        await store.close()
        await killer.end({ timeout: 1 })
        await db.drop()
      }
    })
  })
}
