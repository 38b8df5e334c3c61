/**
 * Real services for tests: a Postgres schema of its own per suite (from
 * AUTOMATON_TEST_DATABASE_URL) and the NATS server of AUTOMATON_TEST_NATS_URL. When a variable
 * is unset the suites that need it are skipped with a loud line; CI always sets both.
 */
import { describe, it } from 'bun:test'
import postgres from 'postgres'

export const TEST_DATABASE_URL = process.env.AUTOMATON_TEST_DATABASE_URL || null
export const TEST_NATS_URL = process.env.AUTOMATON_TEST_NATS_URL || null

const warned = new Set<string>()
/**
 * Says loudly that suites did not run for want of a service, and registers them as skipped (so
 * the run's summary counts them, with the reason). With CI=true a missing service fails the run:
 * CI never skips silently.
 */
export function warnSkipped(what: string, variable: string): void {
  if (process.env.CI === 'true') throw new Error(`${variable} is not set: CI must run ${what}`)
  describe.skip(`${what} (skipped: ${variable} is not set)`, () => {
    it('needs the service', () => {})
  })
  if (warned.has(variable)) return
  warned.add(variable)
  console.warn(`\n!!!!! SKIPPED: ${what} — ${variable} is not set, so these tests did not run !!!!!\n`)
}

/** The store kinds a suite should run against: SQLite always, Postgres when configured. */
export function storeKinds(): Array<'sqlite' | 'postgres'> {
  if (!TEST_DATABASE_URL) {
    warnSkipped('Postgres variants of the store and API suites', 'AUTOMATON_TEST_DATABASE_URL')
    return ['sqlite']
  }
  return ['sqlite', 'postgres']
}

/** A fresh, empty schema in the test database; the returned URL selects it. */
export async function freshPostgresUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('AUTOMATON_TEST_DATABASE_URL is not set')
  const schema = `t_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const url = new URL(TEST_DATABASE_URL)
  url.searchParams.set('search_path', schema)
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} })
      await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await sql.end()
    },
  }
}
