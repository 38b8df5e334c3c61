/** A JSON-lines logger over a write function (main.ts passes stderr). */
import type { Logger } from './ports/logger.ts'

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const
export type LogLevel = keyof typeof LEVELS

export function createJsonLogger(level: LogLevel, write: (line: string) => void, base: Record<string, unknown> = {}): Logger {
  const min = LEVELS[level]
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields })}\n`)
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createJsonLogger(level, write, { ...base, ...fields }),
  }
}
