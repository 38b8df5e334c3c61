/**
 * Schemas of query strings and path parameters. They use Elysia's `t`, whose integer type
 * coerces the text of a query string ("20") to a number before validation. Each numeric
 * parameter carries its own error detail, because Elysia's coercion forgets the parameter's
 * name when a bound is broken.
 */
import { t } from 'elysia'

interface IntOptions {
  minimum?: number
  maximum?: number
  default?: number
  description?: string
}

function rangeText(o: IntOptions): string {
  if (o.minimum !== undefined && o.maximum !== undefined) return ` between ${o.minimum} and ${o.maximum}`
  if (o.minimum !== undefined) return ` of at least ${o.minimum}`
  if (o.maximum !== undefined) return ` of at most ${o.maximum}`
  return ''
}

/**
 * An integer query (or path) parameter with a precise error detail. Without a maximum of its
 * own it is a safe integer at most: "1e308" is an integer to the validator, and neither store
 * can bind it.
 */
export function intParam(name: string, options: IntOptions = {}, where: 'query' | 'params' = 'query') {
  const bounded = { maximum: Number.MAX_SAFE_INTEGER, ...options }
  const detail = { path: `/${name}`, in: where, message: `must be an integer${rangeText(bounded)}` }
  return t.Integer({ ...bounded, error: () => detail })
}

/** A boolean query parameter: `true` or `false`. */
export function boolParam(name: string, description?: string) {
  const detail = { path: `/${name}`, in: 'query', message: 'must be true or false' }
  return t.Boolean({ description, error: () => detail })
}

export const PageQuery = t.Object({
  limit: t.Optional(intParam('limit', { minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(intParam('offset', { minimum: 0, default: 0 })),
})

export const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) })

export { t }
