/** How a configuration entry is declared, the parsers of its values, and the error a bad value raises. */
import { parseRetention } from '../domain/retention.ts'
import { parseDurationList } from '../duration.ts'
import { type ChainConfig, parseChains } from '../ports/chain.ts'
import { parseCidr } from '../security/ip-ranges.ts'

/** One setting of a configuration `C`: its variable, its key, its default, its meaning and its parser. */
export interface ConfigEntryOf<C> {
  readonly env: string
  readonly key: keyof C
  readonly default: string
  readonly description: string
  readonly parse: Parser<unknown>
}

export type Parser<T> = (raw: string, name: string) => T

export const str: Parser<string> = (raw) => raw
export const nullable: Parser<string | null> = (raw) => (raw === '' ? null : raw)
export const optionalHttpUrl: Parser<string | null> = (raw, name) => {
  if (raw === '') return null
  if (!/^https?:\/\/[^\s/]+/.test(raw)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`)
  return raw
}
export const list: Parser<string[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
export const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> =>
  (raw, name) => {
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`)
    }
    return n
  }
export const bool: Parser<boolean> = (raw, name) => {
  if (/^(true|1|yes)$/i.test(raw)) return true
  if (/^(false|0|no)$/i.test(raw)) return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}
export const onOff: Parser<boolean> = (raw, name) => {
  if (/^(on|true|1|yes)$/i.test(raw)) return true
  if (/^(off|false|0|no)$/i.test(raw)) return false
  throw new ConfigError(`${name} must be on or off, got "${raw}"`)
}
export const durations: Parser<number[]> = (raw, name) => {
  try {
    const list = parseDurationList(raw)
    if (list.length === 0) throw new Error('it is empty')
    return list
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`)
  }
}
/** One duration (`300ms`, `5m`, a bare number of milliseconds), at least `min` ms. */
export const duration =
  (min: number): Parser<number> =>
  (raw, name) => {
    let ms: number
    try {
      const list = parseDurationList(raw)
      if (list.length !== 1) throw new Error('one duration is expected')
      ms = list[0]
    } catch (error) {
      throw new ConfigError(`${name}: ${(error as Error).message}`)
    }
    if (ms < min) throw new ConfigError(`${name} must be at least ${min} ms, got "${raw}"`)
    return ms
  }
/** Empty, or NATS subject tokens joined by dots (letters, digits, `_` and `-`): a subject prefix. */
export const subjectPrefix: Parser<string> = (raw, name) => {
  if (raw !== '' && !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(raw))
    throw new ConfigError(`${name} must be words of letters, digits, _ or - joined by dots, got "${raw}"`)
  return raw
}
export const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw, name) => {
    const v = raw.toLowerCase() as T
    if (!values.includes(v)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`)
    return v
  }

export const retention: Parser<number> = (raw, name) => {
  const ms = parseRetention(raw)
  if (ms === null)
    throw new ConfigError(`${name} must be 0 or whole minutes, hours, days or weeks (90m, 12h, 30d, 2w), got "${raw}"`)
  return ms
}
export const chainList: Parser<ChainConfig[]> = (raw) => {
  try {
    return parseChains(raw)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}
export const optionalPort: Parser<number | null> = (raw, name) => (raw === '' ? null : int(0, 65535)(raw, name))
/** A positive span of whole minutes, hours, days or weeks. */
export const span: Parser<number> = (raw, name) => {
  const ms = parseRetention(raw)
  if (ms === null || ms === 0)
    throw new ConfigError(`${name} must be whole minutes, hours, days or weeks (90m, 12h, 30d, 2w), got "${raw}"`)
  return ms
}
export const cidrs: Parser<string[]> = (raw, name) => {
  const out = list(raw, name)
  for (const entry of out)
    if (!parseCidr(entry)) throw new ConfigError(`${name}: "${entry}" is not an IP address or CIDR range`)
  return out
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}
