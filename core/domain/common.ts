/** Shapes shared by every resource: the envelope, the error body, pagination. */
import { type Static, type TSchema, Type as t } from '@sinclair/typebox'

export const ErrorBody = t.Object(
  {
    code: t.Integer({ description: 'the HTTP status' }),
    message: t.String(),
    reason: t.Optional(
      t.String({ description: 'a machine-readable cause, when there is one (429 `rate_limited` of flow control)' }),
    ),
    details: t.Array(t.Any(), { description: 'one item per problem, usually `{ path, message }`' }),
    requestId: t.String(),
  },
  { $id: 'ErrorBody' },
)
export type ErrorBody = Static<typeof ErrorBody>

export const Envelope = <T extends TSchema>(data: T) =>
  t.Object({
    code: t.Literal(200),
    data,
    message: t.Literal('success'),
    requestId: t.String(),
  })

export const Page = <T extends TSchema>(item: T) =>
  t.Object({
    hasMore: t.Boolean(),
    items: t.Array(item),
    limit: t.Integer(),
    offset: t.Integer(),
  })
export interface Page<T> {
  hasMore: boolean
  items: T[]
  limit: number
  offset: number
}

/**
 * The largest count or version number the API takes: what a 32-bit integer column holds. A
 * larger one is refused by validation (400) instead of overflowing the column (a 500).
 */
export const MAX_INT32 = 2_147_483_647

export interface PageRequest {
  limit: number
  offset: number
}

export function pageRequest(query: { limit?: number; offset?: number }): PageRequest {
  return { limit: query.limit ?? 20, offset: query.offset ?? 0 }
}

/** Builds a page from rows fetched with `limit + 1`. */
export function toPage<T>(rows: T[], page: PageRequest): Page<T> {
  const hasMore = rows.length > page.limit
  return { hasMore, items: hasMore ? rows.slice(0, page.limit) : rows, limit: page.limit, offset: page.offset }
}

/** A moment, as every answer writes it: RFC 3339 UTC with milliseconds. */
export const Timestamp = t.String({ format: 'date-time' })
/** A moment that may not have happened: `""` until it has (unset strings are `""`, never null). */
export const TimestampOrEmpty = t.Union([Timestamp, t.Literal('')])
