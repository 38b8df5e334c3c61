/**
 * The form model of a node type's payload schema (JSON Schema as TypeBox writes it): one field
 * per property with the widget it needs. Unions of constants become a choice, other unions a
 * variant picker, records and schemas without a type a JSON field; `x-dynamic-options` marks a
 * field whose values the plugin loads and `x-automaton: condition` the condition of `if`/`filter`.
 */
import { childPointer } from './pointer.ts'

export type JsonSchema = Record<string, any>

export type FieldKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'array'
  | 'object'
  | 'union'
  | 'condition'
  | 'json'

export interface FieldModel {
  /** RFC 6901 pointer into the node object, e.g. `/payload/message`. */
  pointer: string
  key: string
  label: string
  description?: string
  required: boolean
  kind: FieldKind
  schema: JsonSchema
  /** Whether the field's allowed values are loaded from the plugin. */
  dynamic: boolean
  /** The choices of an `enum` field. */
  choices?: unknown[]
  /** The variants of a `union` field, null left out (an optional field is cleared instead). */
  variants?: JsonSchema[]
}

const variantsOf = (schema: JsonSchema): JsonSchema[] | undefined =>
  Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined

const isNull = (schema: JsonSchema) => schema.type === 'null' || schema.const === null

/** The allowed values of a schema that only allows constants, else undefined. */
export function constantsOf(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum
  if (Object.hasOwn(schema, 'const')) return [schema.const]
  const variants = variantsOf(schema)?.filter((v) => !isNull(v))
  if (!variants?.length) return undefined
  const values: unknown[] = []
  for (const variant of variants) {
    const constants = constantsOf(variant)
    if (!constants) return undefined
    values.push(...constants)
  }
  return values
}

/** The type of a schema, a single type when `type` lists it with null. */
function typeOf(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t: string) => t !== 'null')
  return schema.type
}

/** The widget a schema needs. */
export function kindOf(schema: JsonSchema): FieldKind {
  if (schema['x-automaton'] === 'condition') return 'condition'
  if (constantsOf(schema)) return 'enum'
  const variants = variantsOf(schema)?.filter((v) => !isNull(v))
  if (variants) return variants.length === 1 ? kindOf(variants[0]) : 'union'
  const type = typeOf(schema)
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type
  if (type === 'array') return 'array'
  if (type === 'object' && schema.properties && !schema.patternProperties) return 'object'
  return 'json'
}

/** A readable label from a property key: `channelId` → `Channel id`. */
export function labelOf(key: string, schema: JsonSchema = {}): string {
  if (typeof schema.title === 'string' && schema.title) return schema.title
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
  return words ? words[0].toUpperCase() + words.slice(1) : key
}

/** The field of one value: `key` labels it, `pointer` says where it is in the node object. */
export function fieldOf(schema: JsonSchema, pointer: string, key: string, required: boolean): FieldModel {
  const variants = variantsOf(schema)?.filter((v) => !isNull(v))
  // A single non-null variant (an optional or nullable value) is that variant's field.
  const effective = variants?.length === 1 ? { ...variants[0], ...withoutVariants(schema) } : schema
  const kind = kindOf(effective)
  return {
    pointer,
    key,
    label: labelOf(key, effective),
    description: typeof effective.description === 'string' ? effective.description : undefined,
    required,
    kind,
    schema: effective,
    dynamic: effective['x-dynamic-options'] === true,
    choices: kind === 'enum' ? constantsOf(effective) : undefined,
    variants: kind === 'union' ? variants : undefined,
  }
}

function withoutVariants(schema: JsonSchema): JsonSchema {
  const { anyOf: _a, oneOf: _o, ...rest } = schema
  return rest
}

/** The fields of an object schema's properties, required ones first, in declaration order otherwise. */
export function objectFields(schema: JsonSchema | undefined, pointer: string): FieldModel[] {
  const properties: Record<string, JsonSchema> = schema?.properties ?? {}
  const required = new Set<string>(Array.isArray(schema?.required) ? schema.required : [])
  const fields = Object.entries(properties).map(([key, s]) =>
    fieldOf(s, childPointer(pointer, key), key, required.has(key)),
  )
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)]
}

/** The index of the first variant the value fits (by type, constants and required keys), else 0. */
export function variantFor(variants: JsonSchema[], value: unknown): number {
  const index = variants.findIndex((variant) => fits(variant, value))
  return Math.max(index, 0)
}

function fits(schema: JsonSchema, value: unknown): boolean {
  const constants = constantsOf(schema)
  if (constants) return constants.some((c) => c === value)
  const type = typeOf(schema)
  if (type === 'string') return typeof value === 'string'
  if (type === 'number') return typeof value === 'number'
  if (type === 'integer') return Number.isInteger(value)
  if (type === 'boolean') return typeof value === 'boolean'
  if (type === 'array') return Array.isArray(value)
  if (type === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    const required: string[] = Array.isArray(schema.required) ? schema.required : []
    return required.every((key) => Object.hasOwn(value, key) && fitsProperty(schema, key, value))
  }
  return variantsOf(schema)?.some((v) => fits(v, value)) ?? true
}

/** A required constant property (a discriminator such as `kind: 'email'`) must hold its constant. */
function fitsProperty(schema: JsonSchema, key: string, value: object): boolean {
  const property: JsonSchema | undefined = schema.properties?.[key]
  const constants = property ? constantsOf(property) : undefined
  return !constants || constants.includes((value as Record<string, unknown>)[key])
}

/** A value to start a variant with when a person picks it: its default, else an empty value of its type. */
export function emptyValue(schema: JsonSchema): unknown {
  if (Object.hasOwn(schema, 'default')) return schema.default
  const constants = constantsOf(schema)
  if (constants) return constants[0]
  const type = typeOf(schema)
  if (type === 'string') return ''
  if (type === 'number' || type === 'integer') return 0
  if (type === 'boolean') return false
  if (type === 'array') return []
  if (type === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of schema.required ?? []) {
      const property = schema.properties?.[key]
      if (property) out[key] = emptyValue(property)
    }
    return out
  }
  return undefined
}

/** A short name for a variant in the picker: its title, its constant discriminator, or its type. */
export function variantLabel(schema: JsonSchema, index: number): string {
  if (typeof schema.title === 'string') return schema.title
  for (const [key, property] of Object.entries<JsonSchema>(schema.properties ?? {})) {
    const constants = constantsOf(property)
    if (constants?.length === 1 && schema.required?.includes(key)) return `${key}: ${String(constants[0])}`
  }
  return typeOf(schema) ?? `variant ${index + 1}`
}
