/**
 * Rows of the situation universe: `universe_tickers`, their name words (`universe_words`), the
 * full-text table on SQLite (`universe_fts`; Postgres searches `search_text` with pg_trgm), and
 * the one row of `universe_state` that says whether a universe is loaded or being replaced.
 *
 * A search is made of tiers (the exact symbol, symbol prefixes, name-word prefixes, names
 * containing the text); each tier is one indexed query, ranked by rank then symbol.
 */
import { normalizeSymbol, type RankedTicker, wordsOf } from '../domain/universe.ts'
import type { Dialect, SqlExecutor, SqlValue } from '../ports/store.ts'
import { likeLiteral } from './templates.ts'

export interface UniverseState {
  status: 'ready' | 'importing'
  count: number
  source: string
  loaded_at: number
}

/** One tier of a search. */
export type UniverseTier =
  | { kind: 'symbol'; norm: string }
  | { kind: 'symbolPrefix'; norm: string }
  /** Names with a word starting with `word`, the best `pick` of them; with `phrase`, names containing it too. */
  | { kind: 'nameWord'; word: string; phrase: string | null; pick: number }
  /** Names (or symbols) containing `text`: three characters at least, as a trigram index needs. */
  | { kind: 'nameContains'; text: string }

const CHUNK = 400
const COLUMNS = 'symbol, name, exchange, type, rank'

/** Full-text search looks in the name and the symbol (as written and normalised). */
const searchTextOf = (r: RankedTicker) =>
  `${r.name.toLowerCase()} ${r.symbol.toLowerCase()} ${normalizeSymbol(r.symbol).toLowerCase()}`

/** `($1, $2, …), (…)`: `rows` tuples of `width` placeholders. */
const tuples = (rows: number, width: number) =>
  Array.from(
    { length: rows },
    (_, j) => `(${Array.from({ length: width }, (_, k) => `$${j * width + k + 1}`).join(', ')})`,
  ).join(', ')

/** A tier's query and parameters, without its order and limit. */
function tierQuery(dialect: Dialect, tier: UniverseTier): { sql: string; params: SqlValue[]; order: string } {
  const ranked = 't.rank, t.symbol'
  switch (tier.kind) {
    case 'symbol':
      return { sql: `SELECT ${COLUMNS} FROM universe_tickers t WHERE t.norm = $1`, params: [tier.norm], order: ranked }
    case 'symbolPrefix':
      return {
        sql: `SELECT ${COLUMNS} FROM universe_tickers t WHERE t.norm > $1 AND t.norm < $2`,
        params: [tier.norm, `${tier.norm}~`],
        order: ranked,
      }
    case 'nameWord': {
      // The best-ranked matches are picked in the words table, then joined: a word shared by
      // thousands of names costs a sort of their index entries, not thousands of joins.
      const phrase = tier.phrase === null ? '' : " AND name_lower LIKE $3 ESCAPE '\\'"
      const params: SqlValue[] = [
        tier.word,
        `${tier.word}\u{10FFFF}`,
        ...(tier.phrase === null ? [] : [`%${likeLiteral(tier.phrase)}%`]),
      ]
      return {
        sql: `SELECT t.symbol, t.name, t.exchange, t.type, t.rank FROM (SELECT symbol, rank FROM universe_words WHERE word >= $1 AND word < $2${phrase} ORDER BY rank, symbol LIMIT ${tier.pick}) w JOIN universe_tickers t ON t.symbol = w.symbol`,
        params,
        order: 'w.rank, w.symbol',
      }
    }
    case 'nameContains':
      return dialect === 'sqlite'
        ? {
            sql: `SELECT ${COLUMNS} FROM universe_tickers t WHERE t.symbol IN (SELECT symbol FROM universe_fts WHERE universe_fts MATCH $1)`,
            params: [`"${tier.text.replace(/"/g, '""')}"`],
            order: ranked,
          }
        : {
            sql: `SELECT ${COLUMNS} FROM universe_tickers t WHERE t.search_text LIKE $1 ESCAPE '\\'`,
            params: [`%${likeLiteral(tier.text)}%`],
            order: ranked,
          }
  }
}

export const universe = {
  state: (db: SqlExecutor) =>
    db.get<UniverseState>('SELECT status, count, source, loaded_at FROM universe_state WHERE id = 1'),

  /** Processes sharing a Postgres database change the universe one at a time (until the transaction ends). */
  lock: (tx: SqlExecutor, dialect: Dialect) =>
    dialect === 'postgres'
      ? tx.run("SELECT pg_advisory_xact_lock(hashtext('automaton.universe'))")
      : Promise.resolve(0),

  /** Marks the universe as being replaced, from `source`. */
  markImporting: (tx: SqlExecutor, source: string, at: number) =>
    tx.run(
      `INSERT INTO universe_state (id, status, count, source, loaded_at) VALUES (1, 'importing', 0, $1, $2)
       ON CONFLICT (id) DO UPDATE SET status = 'importing', loaded_at = excluded.loaded_at`,
      [source, at],
    ),

  /** Replaces every ticker, its name words and (SQLite) its full-text row with `rows`. */
  async replaceTickers(tx: SqlExecutor, dialect: Dialect, rows: readonly RankedTicker[]): Promise<void> {
    await tx.run('DELETE FROM universe_words')
    await tx.run('DELETE FROM universe_tickers')
    if (dialect === 'sqlite') await tx.run('DELETE FROM universe_fts')
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK)
      await tx.run(
        `INSERT INTO universe_tickers (symbol, norm, name, name_lower, search_text, exchange, type, rank) VALUES ${tuples(chunk.length, 8)}`,
        chunk.flatMap((r) => [
          r.symbol,
          normalizeSymbol(r.symbol),
          r.name,
          r.name.toLowerCase(),
          searchTextOf(r),
          r.exchange,
          r.type,
          r.rank,
        ]),
      )
      const words = chunk.flatMap((r) =>
        wordsOf(r.name).map((w) => [w, r.symbol, r.rank, r.name.toLowerCase()] as const),
      )
      for (let k = 0; k < words.length; k += CHUNK) {
        const part = words.slice(k, k + CHUNK)
        await tx.run(
          `INSERT INTO universe_words (word, symbol, rank, name_lower) VALUES ${tuples(part.length, 4)} ON CONFLICT DO NOTHING`,
          part.flat(),
        )
      }
      if (dialect === 'sqlite') {
        await tx.run(
          `INSERT INTO universe_fts (search_text, symbol) VALUES ${tuples(chunk.length, 2)}`,
          chunk.flatMap((r) => [searchTextOf(r), r.symbol]),
        )
      }
    }
  },

  /** The replacement is complete: `count` tickers from `source`. */
  markLoaded: (tx: SqlExecutor, count: number, source: string, at: number) =>
    tx.run("UPDATE universe_state SET status = 'ready', count = $1, source = $2, loaded_at = $3 WHERE id = 1", [
      count,
      source,
      at,
    ]),

  /** Ready again; with `onlyIfLoaded`, only when a universe is there (an import that failed leaves the one before). */
  markReady: (tx: SqlExecutor, onlyIfLoaded = false) =>
    tx.run(`UPDATE universe_state SET status = 'ready' WHERE id = 1${onlyIfLoaded ? ' AND count > 0' : ''}`),

  /** The tickers of one search tier, best first, at most `limit` (a name may come once per matching word). */
  tier(db: SqlExecutor, dialect: Dialect, tier: UniverseTier, limit: number) {
    const { sql, params, order } = tierQuery(dialect, tier)
    return db.all<RankedTicker>(`${sql} ORDER BY ${order} LIMIT ${limit}`, params)
  },

  /** A page of the listing, by rank then symbol; one more than `limit` when there are more. */
  page: (db: SqlExecutor, type: string | undefined, limit: number, offset: number) =>
    db.all<RankedTicker>(
      `SELECT ${COLUMNS} FROM universe_tickers${type ? ' WHERE type = $1' : ''} ORDER BY rank, symbol LIMIT ${limit + 1} OFFSET ${offset}`,
      type ? [type] : [],
    ),

  /** The normalised symbols among `norms` that the universe has. */
  async knownNorms(db: SqlExecutor, norms: readonly string[]): Promise<Set<string>> {
    const known = new Set<string>()
    for (let i = 0; i < norms.length; i += CHUNK) {
      const part = norms.slice(i, i + CHUNK)
      const rows = await db.all<{ norm: string }>(
        `SELECT norm FROM universe_tickers WHERE norm IN (${part.map((_, j) => `$${j + 1}`).join(', ')})`,
        part,
      )
      for (const r of rows) known.add(r.norm)
    }
    return known
  },
}
