/**
 * fast-check arbitraries from the JSON schemas of an OpenAPI document: values shaped like what
 * an operation takes (so they pass the validator and reach the handler), with a hostile value
 * (NUL, a lone surrogate, a huge string, an extreme number, the wrong type) in some places.
 */
import fc from 'fast-check'

export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  patternProperties?: Record<string, JsonSchema>
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  maxItems?: number
}

/** Values no validator is likely to expect, for any place of a body or a query. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\u202e\u0000x',
    '%00',
    '../../etc/passwd',
    'x'.repeat(20_000),
    "' OR 1=1--",
    '{{$env}}',
    '__proto__',
  ),
  fc.constantFrom(-1, 0, 2 ** 53, -(2 ** 63), 1e308, -1e308, 0.5, true, null, [], {}),
  fc.jsonValue({ maxDepth: 2 }),
)

/** A string within the schema's length, sometimes with a NUL or a lone surrogate inside. */
function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40))
  const plain = fc.string({ minLength, maxLength })
  return fc.oneof(
    { arbitrary: plain, weight: 3 },
    { arbitrary: plain.map((s) => (s.length > 1 ? `${s.slice(0, -1)}\u0000` : s)), weight: 1 },
    { arbitrary: plain.map((s) => (s.length > 1 ? `\ud800${s.slice(1)}` : s)), weight: 1 },
  )
}

function typedArbitrary(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const variants = schema.anyOf ?? schema.oneOf
  if (variants?.length) return fc.oneof(...variants.map((v) => arbitraryOf(v, depth)))
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'string':
      return stringOf(schema)
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1000, Number.MIN_SAFE_INTEGER)
      return fc.integer({ min, max: Math.max(min, Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER)) })
    }
    case 'number': {
      const min = schema.minimum ?? -1e6
      return fc.double({ min, max: Math.max(min, schema.maximum ?? 1e6), noNaN: true })
    }
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(schema.items ? arbitraryOf(schema.items, depth + 1) : hostileValue, {
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      })
    case 'object':
      return objectOf(schema, depth)
    default:
      return hostileValue
  }
}

function objectOf(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const named = Object.entries(schema.properties ?? {})
  const free =
    schema.patternProperties ??
    (typeof schema.additionalProperties === 'object' ? { '': schema.additionalProperties } : null)
  const extra = free
    ? fc.dictionary(fc.string({ maxLength: 12 }), arbitraryOf(Object.values(free)[0] ?? {}, depth + 1), { maxKeys: 3 })
    : fc.constant({})
  if (named.length === 0) return extra
  const record = fc.record(Object.fromEntries(named.map(([key, s]) => [key, arbitraryOf(s, depth + 1)])), {
    requiredKeys: schema.required?.filter((k) => schema.properties?.[k]) ?? [],
  })
  return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }))
}

/** Values for `schema`: mostly of its shape, a hostile value in about one place of six, and only hostile ones past depth 4. */
export function arbitraryOf(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4) return hostileValue
  return fc.oneof({ arbitrary: typedArbitrary(schema, depth), weight: 5 }, { arbitrary: hostileValue, weight: 1 })
}
