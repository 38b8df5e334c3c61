/**
 * Schema helpers of the SDK beside TypeBox's `Type`: condition fields, secret connector fields
 * and the trigger event envelope. Each returns a plain TypeBox schema with an `x-automaton`
 * marker the host reads; nothing here runs at run time.
 */
import {
  type SchemaOptions,
  type StringOptions,
  type TAny,
  type TObject,
  type TSchema,
  type TString,
  Type,
} from '@sinclair/typebox'

export const MARKER = 'x-automaton'

/**
 * The schema of a condition field (`if`, `filter`): `{ "$and" | "$or": [ … ] }`. Declare the
 * field in `raw` and evaluate it with `ctx.evaluateCondition`; definitions are checked for it.
 */
export function Condition(
  description = 'a condition: { "$and" | "$or": [ { "<value or {{expression}}>": { "$op": operand } } ] }',
): TAny {
  return Type.Any({ description, [MARKER]: 'condition' })
}

/**
 * A secret string field of connector data: encrypted at rest, shown masked (`••••1234`), never
 * written to run records, streams or logs. Only top-level fields of connector data may be secret.
 *
 * @example
 * ```ts
 * data: Type.Object({ teamId: Type.String(), botToken: Secret({ description: 'xoxb-…' }) })
 * ```
 */
export function Secret(options: StringOptions = {}): TString {
  return Type.String({ minLength: 1, ...options, writeOnly: true, [MARKER]: 'secret' })
}

/** Whether a schema was made with `Secret()`. */
export function isSecret(schema: TSchema | undefined): boolean {
  return !!schema && (schema as Record<string, unknown>)[MARKER] === 'secret'
}

/** The top-level fields of a connector data schema that are secret. */
export function secretFieldsOf(data: TObject): string[] {
  return Object.entries(data.properties ?? {})
    .filter(([, s]) => isSecret(s))
    .map(([k]) => k)
}

/**
 * The event a run starts with, `{ type, body, headers, receivedAt }`, with a typed body: use it
 * as a trigger's `result` so that `{{root.result.body…}}` and `matches(config, event)` are typed.
 *
 * @example
 * ```ts
 * result: TriggerEvent(Type.Object({ city: Type.String(), celsius: Type.Number() }))
 * ```
 */
export function TriggerEvent<B extends TSchema>(body: B, options: SchemaOptions = {}) {
  return Type.Object(
    {
      type: Type.String({ description: 'the trigger type' }),
      body,
      headers: Type.Record(Type.String(), Type.String()),
      receivedAt: Type.String({ format: 'date-time' }),
    },
    options,
  )
}
