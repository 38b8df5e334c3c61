/** Opens a real store of either kind for a test, and disposes of it afterwards. */
import { join } from 'node:path'
import type { Store } from '../../core/ports/store.ts'
import { postgresStore } from '../../adapters/postgres/store.ts'
import { sqliteStore } from '../../adapters/sqlite/store.ts'
import { freshPostgresUrl } from './services.ts'
import { openSqliteTestStore } from './sqlite-test-store.ts'

export interface TestStore {
  store: Store
  /** Another connection to the same database, as a second process would have. */
  reopen(): Store
  /** Where the data lives: a SQLite directory or a Postgres URL. */
  location: { dataDir?: string; databaseUrl?: string }
  dispose(): Promise<void>
}

export async function openTestStore(kind: 'sqlite' | 'postgres'): Promise<TestStore> {
  if (kind === 'sqlite') return openSqliteTestStore(sqliteStore)
  const opened: Store[] = []
  const db = await freshPostgresUrl()
  const reopen = () => {
    const s = postgresStore({ url: db.url, poolSize: 4 })
    opened.push(s)
    return s
  }
  return {
    store: reopen(),
    reopen,
    location: { databaseUrl: db.url },
    async dispose() {
      for (const s of opened) await s.close()
      await db.drop()
    },
  }
}

/** Reads the database of a server process under test, as SQL rows; for black-box assertions. */
export async function queryDatabase<T = Record<string, unknown>>(
  env: { AUTOMATON_DATA_DIR?: string; AUTOMATON_DATABASE_URL?: string },
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  if (env.AUTOMATON_DATABASE_URL) {
    const { default: postgres } = await import('postgres')
    const db = postgres(env.AUTOMATON_DATABASE_URL, {
      max: 1,
      onnotice: () => {},
      types: { bigint: { to: 20, from: [20], serialize: String, parse: Number } } as never,
    })
    try {
      return [...(await db.unsafe(sql, params as never[]))] as T[]
    } finally {
      await db.end()
    }
  }
  const { Database } = await import('bun:sqlite')
  const db = new Database(join(env.AUTOMATON_DATA_DIR!, 'automaton.db'), { readonly: true })
  try {
    return db.query(sql.replace(/\$(\d+)/g, '?$1')).all(...(params as never[])) as T[]
  } finally {
    db.close()
  }
}
