/**
 * A JSON-lines logger over a write function (main.ts passes stderr).
 *
 * Warnings and errors of one kind (level and message) are written at most once a second: the
 * first at once, the ones after it counted and said in one line when the second ends ("… (37
 * more times in the last second)", with `repeated: 37` and the fields of the last one). An outage
 * makes every loop and request fail the same way; the log says so once a second, not thousands
 * of times.
 */
import type { Logger } from './ports/logger.ts'

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const
export type LogLevel = keyof typeof LEVELS

export interface JsonLoggerOptions {
  /** How a window of repeats ends (tests end it themselves); after a second by default. */
  readonly after?: (ms: number, then: () => void) => void
}

interface Repeats {
  count: number
  last: Record<string, unknown>
}

const REPEAT_WINDOW_MS = 1000

function afterTimeout(ms: number, then: () => void) {
  const timer = setTimeout(then, ms)
  ;(timer as { unref?: () => void }).unref?.()
}

export function createJsonLogger(
  level: LogLevel,
  write: (line: string) => void,
  options: JsonLoggerOptions = {},
): Logger {
  return jsonLogger(level, write, {}, new Map(), options.after ?? afterTimeout)
}

function jsonLogger(
  level: LogLevel,
  write: (line: string) => void,
  base: Record<string, unknown>,
  repeats: Map<string, Repeats>,
  after: NonNullable<JsonLoggerOptions['after']>,
): Logger {
  const min = LEVELS[level]
  const line = (lvl: LogLevel, msg: string, fields: Record<string, unknown>) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })}\n`)

  /** Opens a window in which this kind is only counted; when it ends, says how many came. */
  const countFor = (lvl: LogLevel, msg: string, key: string) =>
    after(REPEAT_WINDOW_MS, () => {
      const seen = repeats.get(key)!
      if (seen.count === 0) return void repeats.delete(key)
      line(lvl, `${msg} (${seen.count} more ${seen.count === 1 ? 'time' : 'times'} in the last second)`, {
        ...seen.last,
        repeated: seen.count,
      })
      seen.count = 0
      countFor(lvl, msg, key)
    })

  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return
    if (lvl !== 'warn' && lvl !== 'error') return line(lvl, msg, { ...base, ...fields })
    const key = `${lvl}\u0000${msg}`
    const seen = repeats.get(key)
    if (seen) {
      seen.count++
      seen.last = { ...base, ...fields }
      return
    }
    repeats.set(key, { count: 0, last: {} })
    line(lvl, msg, { ...base, ...fields })
    countFor(lvl, msg, key)
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => jsonLogger(level, write, { ...base, ...fields }, repeats, after),
  }
}
