/**
 * A full disk, as the embedded store meets it: SQLite's SQLITE_FULL ("database or disk is full")
 * from a statement or a commit, or ENOSPC from flushing the log. It becomes StoreFullError (a 503
 * with Retry-After and the usual error body). Each refused batch is logged with the writes it
 * held (the logger writes one line a second per kind, with a count), and one line says when
 * writes commit again. Nothing here waits or retries: the next write simply tries, so writes go
 * on as soon as space is freed.
 */
import { StoreFullError } from '../../core/errors.ts'
import { type Logger, silentLogger } from '../../core/ports/logger.ts'

export function isDiskFull(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return (
    code === 'SQLITE_FULL' ||
    code === 'ENOSPC' ||
    (typeof message === 'string' && message.includes('database or disk is full'))
  )
}

/** The error a caller of the store sees: StoreFullError for a full disk, anything else as it is. */
export function asDiskFull(error: unknown): unknown {
  return error instanceof StoreFullError || !isDiskFull(error) ? error : new StoreFullError(error)
}

/**
 * Small writes may still fit in the log's file while the disk is full: a commit alone does not
 * prove there is room. The store counts as full until this long has passed without a refusal.
 */
export const FULL_FOR_MS = 2000

export interface DiskFullReport {
  /** Counts `writes` refused when `error` is a full disk (and says whether it was). */
  refused(error: unknown, writes: number): boolean
  /** A write committed: once no write was refused for FULL_FOR_MS, says the disk has room again. */
  committed(): void
  /** The last refusal, while a write was refused within FULL_FOR_MS (the store is not ready); else null. */
  current(): StoreFullError | null
}

export function createDiskFullReport(path: string, logger: Logger = silentLogger): DiskFullReport {
  let last: { error: StoreFullError; at: number } | null = null
  const recent = () => (last && Date.now() - last.at < FULL_FOR_MS ? last : null)
  return {
    refused(error, writes) {
      if (!(error instanceof StoreFullError)) return false
      last = { error, at: Date.now() }
      logger.error('the disk is full: writes are refused until space is freed', { path, writes })
      return true
    },
    committed() {
      if (!last || recent()) return
      last = null
      logger.info('the disk has room again: writes are stored', { path })
    },
    current: () => recent()?.error ?? null,
  }
}
