/**
 * The string formats our schemas use (`date-time`, `date`, and the common ones plugin authors
 * reach for), registered with TypeBox once. TypeBox checks no format by itself: a schema with an
 * unregistered format refuses every value. The engine, the HTTP layer and the SDK import this
 * module, so a schema validates the same wherever it is checked.
 */
import { FormatRegistry } from '@sinclair/typebox'

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(z|[+-]\d{2}:?\d{2})$/i
const DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function isDate(value: string): boolean {
  const m = DATE.exec(value)
  if (!m) return false
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && !leap ? 28 : DAYS[month])
}

function isTime(value: string): boolean {
  const m = TIME.exec(value)
  if (!m) return false
  const hour = Number(m[1])
  const minute = Number(m[2])
  const second = Number(m[3])
  // 60: a leap second.
  return hour <= 23 && minute <= 59 && second <= 60
}

const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => {
    const at = value.search(/[tT]/)
    return at > 0 && isDate(value.slice(0, at)) && isTime(value.slice(at + 1))
  },
  date: isDate,
  time: isTime,
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
  uri: (value) => {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return false
    try {
      new URL(value)
      return true
    } catch {
      return false
    }
  },
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
}

/**
 * Registers the formats, replacing any registered before (the HTTP framework registers its own
 * on import; ours must be the ones every check uses).
 */
export function registerFormats(): void {
  for (const [name, check] of Object.entries(FORMATS)) FormatRegistry.Set(name, check)
}

registerFormats()
