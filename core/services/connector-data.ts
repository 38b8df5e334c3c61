/**
 * Connector data against its type's schema: validation (400 with a detail per field), the split
 * into plain and secret fields, masking for output, and the update rule that keeps a secret
 * the client left out or sent back masked. Pure functions; no store, no secret box.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import '../plugin/formats.ts'
import { Value } from '@sinclair/typebox/value'
import type { TObject } from '@sinclair/typebox'
import { badRequest } from '../errors.ts'
import type { AnyConnector } from '../plugin/definitions.ts'
import { secretFieldsOf } from '../plugin/schemas.ts'

export const MASK = '••••'
/** Secrets at least this long show their last 4 characters; shorter ones show only the mask. */
const REVEAL_TAIL_FROM = 12

export type Data = Record<string, unknown>

const checks = new WeakMap<TObject, TypeCheck<TObject>>()
const checkerOf = (schema: TObject) => {
  let check = checks.get(schema)
  if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)))
  return check
}

/** The data cleaned of unknown fields, with defaults applied; 400 listing every problem. */
export function validateData(type: AnyConnector, data: unknown): Data {
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw badRequest('invalid connector data', [{ path: '/data', message: 'must be an object' }])
  const cleaned = Value.Default(type.data, Value.Clean(type.data, Value.Clone(data))) as Data
  const check = checkerOf(type.data)
  if (!check.Check(cleaned)) {
    const details = [...check.Errors(cleaned)].slice(0, 20).map((e) => ({ path: `/data${e.path}`, message: e.message }))
    throw badRequest(`the data does not match the ${type.type} connector type's schema`, details)
  }
  return cleaned
}

/** Refuses a secret sent as a mask (`••••…`): there is no stored value for it to stand for. */
export function refuseMasks(type: AnyConnector, data: Data): void {
  const masked = secretFieldsOf(type.data).filter(
    (k) => typeof data[k] === 'string' && (data[k] as string).startsWith(MASK),
  )
  if (masked.length > 0)
    throw badRequest(
      'invalid connector data',
      masked.map((k) => ({ path: `/data/${k}`, message: 'is a mask; send the secret itself' })),
    )
}

/** The data in two parts: fields stored plain, and secret fields stored sealed. */
export function splitData(type: AnyConnector, data: Data): { plain: Data; secrets: Record<string, string> } {
  const secretFields = new Set(secretFieldsOf(type.data))
  const plain: Data = {}
  const secrets: Record<string, string> = {}
  for (const [k, v] of Object.entries(data)) {
    if (secretFields.has(k) && typeof v === 'string') secrets[k] = v
    else plain[k] = v
  }
  return { plain, secrets }
}

export function maskSecret(value: string): string {
  return value.length >= REVEAL_TAIL_FROM ? `${MASK}${value.slice(-4)}` : MASK
}

/** What the API shows: plain fields as they are, secret fields masked. */
export function maskedData(plain: Data, secrets: Record<string, string>): Data {
  const out: Data = { ...plain }
  for (const [k, v] of Object.entries(secrets)) out[k] = maskSecret(v)
  return out
}

/**
 * The data of an update: `next` replaces the stored data, except that a secret field left out
 * or sent as a mask (`••••…`) keeps its stored value; `null` removes a field.
 */
export function mergeUpdate(
  type: AnyConnector,
  stored: { plain: Data; secrets: Record<string, string> },
  next: Data,
): Data {
  const secretFields = secretFieldsOf(type.data)
  const merged: Data = {}
  for (const [k, v] of Object.entries(next)) {
    if (v === null) continue
    if (secretFields.includes(k) && typeof v === 'string' && v.startsWith(MASK)) {
      if (stored.secrets[k] === undefined)
        throw badRequest('invalid connector data', [
          { path: `/data/${k}`, message: 'is a mask, but no value is stored; send the secret itself' },
        ])
      merged[k] = stored.secrets[k]
      continue
    }
    merged[k] = v
  }
  for (const k of secretFields) {
    if (!(k in next) && stored.secrets[k] !== undefined) merged[k] = stored.secrets[k]
  }
  return merged
}
