/**
 * The situation universe: loads the shipped tickers at first start, replaces them on import in one
 * transaction (searches answer 503 meanwhile, never half a universe), and answers ranked searches
 * and listings.
 *
 * A search walks four tiers and stops once it has a page: the exact symbol, symbol prefixes,
 * name-word prefixes, then names containing the text (FTS5 trigram on SQLite, pg_trgm on
 * Postgres); within a tier, rank then symbol. Each tier is one indexed query, so a search costs
 * the same on the shipped list and on an import of 100,000 tickers, and both stores give the same
 * answers.
 */
import { ensureTrigramIndex } from '../store/trigram.ts'
import {
  ASSET_CLASSES,
  type AssetClass,
  normalizeSymbol,
  type RankedTicker,
  type Ticker,
  UNIVERSE_DEFAULT_LIMIT,
  UNIVERSE_MAX_LIMIT,
  type UniversePage,
} from '../domain/universe.ts'
import { AppError, badRequest, type ErrorDetail } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { universe, type UniverseTier } from '../store/universe.ts'

export interface UniverseServiceDeps {
  store: Store
  clock: Clock
  logger: Logger
  /** AUTOMATON_SITUATION_UNIVERSE: off answers 503 and checks no symbols. */
  enabled: boolean
  /** The universe the project ships (CSV text), loaded when none is. */
  shipped: () => string
}

/** How long a client should wait before asking again while the universe is being replaced. */
const RETRY_AFTER_SECONDS = 5

export class UniverseFileError extends Error {
  override readonly name = 'UniverseFileError'
}

/** Parses `symbol,name,exchange,type,rank` lines (a header line is allowed; quotes as in RFC 4180). */
export function parseUniverseCsv(text: string): RankedTicker[] {
  const rows: RankedTicker[] = []
  const seen = new Set<string>()
  const lines = text.split(/\r?\n/)
  lines.forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return
    const cells = splitCsvLine(line)
    if (i === 0 && cells[0]?.toLowerCase() === 'symbol') return
    const where = `line ${i + 1}`
    if (cells.length < 4) throw new UniverseFileError(`${where}: expected symbol,name,exchange,type[,rank]`)
    const [symbol, name, exchange, type, rankText] = cells.map((c) => c.trim())
    if (!symbol || symbol.length > 40) throw new UniverseFileError(`${where}: the symbol must be 1 to 40 characters`)
    if (!name || name.length > 200) throw new UniverseFileError(`${where}: the name must be 1 to 200 characters`)
    if (!(ASSET_CLASSES as readonly string[]).includes(type))
      throw new UniverseFileError(`${where}: the type must be one of ${ASSET_CLASSES.join(', ')}`)
    const rank = rankText === undefined || rankText === '' ? rows.length + 1 : Number(rankText)
    if (!Number.isInteger(rank) || rank < 0) throw new UniverseFileError(`${where}: the rank must be a whole number`)
    const norm = normalizeSymbol(symbol)
    if (seen.has(norm)) throw new UniverseFileError(`${where}: ${symbol} is listed twice`)
    seen.add(norm)
    rows.push({ symbol, name, exchange: exchange ?? '', type, rank })
  })
  if (rows.length === 0) throw new UniverseFileError('the file lists no tickers')
  return rows
}

function splitCsvLine(line: string): string[] {
  const cells: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      cells.push(cell)
      cell = ''
    } else cell += c
  }
  cells.push(cell)
  return cells
}

const unavailable = (why: string) => new AppError(503, why, [], { 'retry-after': String(RETRY_AFTER_SECONDS) })

/** The universe of tickers: loading it, replacing it from a file, searching it, and checking symbols against it. */
export interface UniverseService {
  /** Loads the shipped universe when none is loaded, and mends a state left by an import that died. */
  ensureLoaded(): Promise<void>
  /** Replaces the universe with a CSV file's tickers (`symbol,name,exchange,type,rank`). */
  import(csv: string, source: string): Promise<{ imported: number }>
  /** Tickers matching a search (by symbol, then name), of an asset class, a page at a time. */
  query(params: { q?: string; asset_class?: string; limit?: number; offset?: number }): Promise<UniversePage>
  /** The symbols not in the universe (none when it is switched off or not loaded: nothing to check against). */
  unknownSymbols(symbols: readonly string[]): Promise<string[]>
}

export function createUniverseService(deps: UniverseServiceDeps): UniverseService {
  const { store } = deps

  /** Replaces the universe; with `onlyIfNone`, only when no universe is loaded or being loaded (first start). */
  async function replace(rows: readonly RankedTicker[], source: string, onlyIfNone = false): Promise<number> {
    const claimed = await store.write(async (tx) => {
      await universe.lock(tx, store.dialect)
      const state = await universe.state(tx)
      // Another process loads it (or did): unless that load died minutes ago, leaving nothing.
      if (onlyIfNone && state && (state.count > 0 || deps.clock.now() - Number(state.loaded_at) < 5 * 60_000))
        return false
      await universe.markImporting(tx, source, deps.clock.now())
      return true
    })
    if (!claimed) return 0
    try {
      await store.write(async (tx) => {
        await universe.lock(tx, store.dialect)
        await universe.replaceTickers(tx, store.dialect, rows)
        await universe.markLoaded(tx, rows.length, source, deps.clock.now())
      })
    } catch (error) {
      // The transaction rolled back: the universe before the import is intact.
      await store.write((tx) => universe.markReady(tx, true)).catch(() => {})
      throw error
    }
    return rows.length
  }

  async function ready(): Promise<void> {
    if (!deps.enabled)
      throw unavailable(
        'the situation universe is switched off on this installation (AUTOMATON_SITUATION_UNIVERSE=off)',
      )
    const state = await universe.state(store)
    if (!state || state.count === 0) throw unavailable('no situation universe is loaded yet')
    if (state.status !== 'ready') throw unavailable('the situation universe is being replaced; ask again in a moment')
  }

  /** The symbols of one tier, best first, not among `taken`, at most `want`. */
  async function tier(next: UniverseTier, taken: Set<string>, want: number): Promise<RankedTicker[]> {
    // A name may match by two of its words: room for the repeats, which are dropped here.
    const rows = await universe.tier(store, store.dialect, next, (want + taken.size) * 2)
    const seen = new Set(taken)
    const out: RankedTicker[] = []
    for (const r of rows) {
      if (seen.has(r.symbol)) continue
      seen.add(r.symbol)
      out.push(r)
    }
    return out.slice(0, want)
  }

  async function search(q: string, limit: number): Promise<{ items: RankedTicker[]; hasMore: boolean }> {
    const want = limit + 1
    const found: RankedTicker[] = []
    const taken = new Set<string>()
    const add = (rows: RankedTicker[]) => {
      for (const r of rows) {
        if (found.length >= want || taken.has(r.symbol)) continue
        taken.add(r.symbol)
        found.push(r)
      }
    }
    const norm = normalizeSymbol(q)
    const text = q.trim().replace(/^\$+/, '').toLowerCase()
    const [firstWord = ''] = text.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0)
    const tiers: Array<UniverseTier | null> = [
      norm ? { kind: 'symbol', norm } : null,
      norm ? { kind: 'symbolPrefix', norm } : null,
      firstWord
        ? { kind: 'nameWord', word: firstWord, phrase: text.includes(' ') ? text : null, pick: (limit + 1) * 4 }
        : null,
      text.length >= 3 ? { kind: 'nameContains', text } : null,
    ]
    for (const next of tiers) {
      if (!next || found.length >= want) continue
      add(await tier(next, taken, want - found.length))
    }
    return { items: found.slice(0, limit), hasMore: found.length > limit }
  }

  return {
    /** Loads the shipped universe when none is loaded, and mends a state left by an import that died. */
    async ensureLoaded(): Promise<void> {
      if (!deps.enabled) return
      await ensureTrigramIndex(store, deps.logger, {
        name: 'universe_tickers_search_trgm',
        table: 'universe_tickers',
        column: 'search_text',
        what: 'the situation universe',
      })
      const state = await universe.state(store)
      if (state && state.count > 0) {
        if (state.status !== 'ready') await store.write((tx) => universe.markReady(tx))
        return
      }
      const count = await replace(parseUniverseCsv(deps.shipped()), 'shipped', true)
      if (count > 0) deps.logger.info('loaded the shipped situation universe', { tickers: count })
    },

    /** Replaces the universe with a CSV file's tickers (`symbol,name,exchange,type,rank`). */
    async import(csv: string, source: string): Promise<{ imported: number }> {
      return { imported: await replace(parseUniverseCsv(csv), source) }
    },

    async query(params: { q?: string; asset_class?: string; limit?: number; offset?: number }): Promise<UniversePage> {
      const limit = params.limit ?? UNIVERSE_DEFAULT_LIMIT
      const offset = params.offset ?? 0
      const problems = []
      if (!Number.isInteger(limit) || limit < 1 || limit > UNIVERSE_MAX_LIMIT)
        problems.push({ path: '/limit', message: `must be a whole number from 1 to ${UNIVERSE_MAX_LIMIT}` })
      if (!Number.isInteger(offset) || offset < 0)
        problems.push({ path: '/offset', message: 'must be a whole number, 0 or more' })
      if (params.asset_class !== undefined && !(ASSET_CLASSES as readonly string[]).includes(params.asset_class)) {
        problems.push({ path: '/asset_class', message: `must be one of ${ASSET_CLASSES.join(', ')}` })
      }
      if (params.q !== undefined && params.q.length > 100)
        problems.push({ path: '/q', message: 'must be at most 100 characters' })
      // SQLite's full-text query ends a string at NUL, and Postgres stores no NUL in text.
      if (params.q?.includes('\u0000')) problems.push({ path: '/q', message: 'must not contain NUL (U+0000)' })
      if (problems.length) throw badRequest('invalid universe query', problems)
      await ready()
      const strip = ({ symbol, name, exchange, type }: RankedTicker): Ticker => ({ symbol, name, exchange, type })
      if (params.q !== undefined && params.q.trim() !== '') {
        const { items, hasMore } = await search(params.q, limit)
        return { hasMore, items: items.map(strip), limit, offset: 0 }
      }
      const filter = params.asset_class as AssetClass | undefined
      const rows = await universe.page(store, filter, limit, offset)
      return { hasMore: rows.length > limit, items: rows.slice(0, limit).map(strip), limit, offset }
    },

    /** The symbols not in the universe (none when it is switched off or not loaded: nothing to check against). */
    async unknownSymbols(symbols: readonly string[]): Promise<string[]> {
      if (!deps.enabled || symbols.length === 0) return []
      const state = await universe.state(store)
      if (!state || state.count === 0) return []
      const known = await universe.knownNorms(store, [...new Set(symbols.map(normalizeSymbol))])
      return symbols.filter((s) => !known.has(normalizeSymbol(s)))
    },
  }
}

/** The trigger whose `tickers` must be symbols of the universe. */
export const SITUATION_TRIGGER = 'situation-fired'

/** A save check: every ticker a situation trigger names is in the universe (unknown ones listed in details). */
export function situationSymbolsCheck(universe: Pick<UniverseService, 'unknownSymbols'>) {
  return async (definition: { nodes?: Record<string, { type?: string; payload?: unknown }> }) => {
    const problems: ErrorDetail[] = []
    for (const [id, node] of Object.entries(definition.nodes ?? {})) {
      if (node?.type !== SITUATION_TRIGGER) continue
      const tickers = (node.payload as { tickers?: unknown } | undefined)?.tickers
      if (!Array.isArray(tickers)) continue
      const named = tickers.filter((s): s is string => typeof s === 'string')
      const unknown = new Set(await universe.unknownSymbols(named))
      tickers.forEach((symbol, i) => {
        if (typeof symbol === 'string' && unknown.has(symbol)) {
          problems.push({
            path: `/nodes/${id}/payload/tickers/${i}`,
            message: `"${symbol}" is not a ticker of the situation universe (GET /v1/situation/universe)`,
          })
        }
      })
    }
    return problems
  }
}
