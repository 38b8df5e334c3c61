/**
 * Trigram indexes on Postgres: full-text `LIKE '%…%'` searches use a pg_trgm GIN index when the
 * database user may create the extension (or it exists); without one the same search scans the
 * column: right, only slower. SQLite uses FTS5 trigram tables instead (see the migrations).
 */
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'

export async function ensureTrigramIndex(
  store: Store,
  logger: Logger,
  index: { name: string; table: string; column: string; what: string },
): Promise<boolean> {
  if (store.dialect !== 'postgres') return false
  try {
    await store.write(async (tx) => {
      // Processes starting together create the extension one at a time.
      await tx.run("SELECT pg_advisory_xact_lock(hashtext('automaton.pg_trgm'))")
      const installed = await tx.get<{ schema: string }>(
        "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'",
      )
      if (!installed) await tx.run('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public')
      const schema = (installed?.schema ?? 'public').replace(/"/g, '')
      await tx.run(
        `CREATE INDEX IF NOT EXISTS ${index.name} ON ${index.table} USING gin (${index.column} "${schema}".gin_trgm_ops)`,
      )
    })
    return true
  } catch (error) {
    logger.warn(
      `no trigram index for ${index.what}: full-text searches scan the column (grant CREATE on the database, or create the pg_trgm extension)`,
      { error: String(error) },
    )
    return false
  }
}
