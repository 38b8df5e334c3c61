/**
 * The situation universe: the tickers the situation trigger watches. `type` is the asset class
 * (`equity`, `crypto`, `index`); `rank` orders listings and breaks ties in searches (lower first).
 */
import { type Static, Type as t } from '@sinclair/typebox'

export const ASSET_CLASSES = ['equity', 'crypto', 'index'] as const
export type AssetClass = (typeof ASSET_CLASSES)[number]

export const Ticker = t.Object({ symbol: t.String(), name: t.String(), exchange: t.String(), type: t.String() })
export type Ticker = Static<typeof Ticker>

export interface RankedTicker extends Ticker {
  rank: number
}

export const UniversePage = t.Object({
  hasMore: t.Boolean(),
  items: t.Array(Ticker),
  limit: t.Integer(),
  offset: t.Integer(),
})
export type UniversePage = Static<typeof UniversePage>

export const UNIVERSE_DEFAULT_LIMIT = 20
export const UNIVERSE_MAX_LIMIT = 100

/**
 * A symbol as the universe compares it: `$` stripped, upper case, `.`, `/` and spaces as `-`
 * (so `$aapl` is `AAPL` and `brk.b` is `BRK-B`).
 */
export function normalizeSymbol(raw: string): string {
  return raw
    .trim()
    .replace(/^\$+/, '')
    .toUpperCase()
    .replace(/[./\s]+/g, '-')
}

/** The lower-case words of a name, for name-word prefix search. */
export function wordsOf(name: string): string[] {
  return [
    ...new Set(
      name
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 0),
    ),
  ]
}
