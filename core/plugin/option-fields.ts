/**
 * The payload fields a plugin's option loaders name. A loader's key is a top-level field
 * (`status`) or a path to a field inside objects and arrays: object properties joined with `.`,
 * and `[]` after an array's name for its items (`target.board`, `routes[].channel`, `tags[]`).
 * Here a key is followed through a payload schema, to check that it names a field and to mark
 * that field's schema in the catalog.
 */

type Schema = Record<string, unknown>

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null

/** A key's steps: each a property name, followed by `items` once per `[]` after it. */
function stepsOf(key: string): string[] | null {
  const steps: string[] = []
  for (const segment of key.split('.')) {
    const match = /^([^[\]]+)((?:\[\])*)$/.exec(segment)
    if (!match) return null
    steps.push(match[1], ...Array.from({ length: match[2].length / 2 }, () => '[]'))
  }
  return steps
}

/** The single object or array variant of an optional or nullable schema, or the schema itself. */
function unwrap(schema: Schema): Schema {
  const variants = (schema.anyOf ?? schema.oneOf) as unknown
  if (!Array.isArray(variants)) return schema
  const structured = variants.filter((v) => isSchema(v) && (v.type === 'object' || v.type === 'array'))
  return structured.length === 1 ? (structured[0] as Schema) : schema
}

/**
 * The schema of the field `key` names inside `payload` (a JSON Schema of an object), or
 * undefined when the key is not a path through its properties and array items.
 */
export function optionFieldSchema(payload: unknown, key: string): Schema | undefined {
  const steps = stepsOf(key)
  if (!steps || !isSchema(payload)) return undefined
  let schema: Schema = payload
  for (const step of steps) {
    const at = unwrap(schema)
    const next =
      step === '[]'
        ? at.items
        : isSchema(at.properties) && Object.hasOwn(at.properties, step)
          ? at.properties[step]
          : undefined
    if (!isSchema(next)) return undefined
    schema = next
  }
  return schema
}

/** Puts `mark` on the schema of the field `key` names (in place: `payload` is the catalog's own copy). */
export function markOptionField(payload: Schema, key: string, mark: string): void {
  const schema = optionFieldSchema(payload, key)
  if (schema) schema[mark] = true
}
