/**
 * Keeps the console lines of one sandboxed call within a line and byte budget, ending with a
 * marker line when anything was dropped. It does not format values (the VM side does) and never
 * throws, so a chatty transform cannot fail because of its logs.
 */
import { truncateUtf8, utf8ByteLength } from './json-text.ts'

export interface LogBudget {
  readonly maxLines: number
  readonly maxBytes: number
}

export const LOG_BUDGET: LogBudget = Object.freeze({ maxLines: 100, maxBytes: 10 * 1024 })

export const TRUNCATION_MARKER = '… truncated'

export interface LogCollector {
  /** Keeps `line` (cut to the remaining bytes); false once the budget is spent. */
  add(line: string): boolean
  /** The kept lines, plus the marker if some were dropped or cut. */
  lines(): string[]
}

export function createLogCollector(budget: LogBudget = LOG_BUDGET): LogCollector {
  const kept: string[] = []
  let bytes = 0
  let truncated = false

  function add(line: string): boolean {
    if (truncated) return false
    const room = budget.maxBytes - bytes
    if (kept.length >= budget.maxLines || room <= 0) {
      truncated = true
      return false
    }
    const size = utf8ByteLength(line)
    if (size <= room) {
      kept.push(line)
      bytes += size
      return true
    }
    kept.push(truncateUtf8(line, room))
    bytes = budget.maxBytes
    truncated = true
    return false
  }

  return {
    add,
    lines: () => (truncated ? [...kept, TRUNCATION_MARKER] : [...kept]),
  }
}
