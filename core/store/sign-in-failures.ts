/**
 * Rows of `sign_in_failures`: the failed sign-ins of one account or one client address within a
 * sliding window, kept in the database so that every API process counts the same attempts.
 *
 * An attempt is taken before its password is checked, and counts as a failure until it is given
 * back: attempts sent at once take turns on the key's row (the upsert locks it in Postgres;
 * SQLite has one writer), so no more of them are checked than the limit allows. A key is a hash
 * of what it counts, never the email or the address itself. Rows untouched for a day are pruned;
 * the window is shorter than that.
 */
import { serialOnly, type SqlExecutor } from '../ports/store.ts'

export interface FailureLimit {
  /** What is counted: a hash of an account's email or of a client address. */
  readonly key: string
  /** Failures allowed within the window. */
  readonly limit: number
}

/** Creates the key's row when there is none and locks it; answers its failures, oldest first. */
async function lockedFailures(tx: SqlExecutor, key: string, at: number): Promise<number[]> {
  const row = await tx.get<{ failures: string }>(
    `INSERT INTO sign_in_failures (key, failures, updated_at) VALUES ($1, '[]', $2)
     ON CONFLICT (key) DO UPDATE SET updated_at = sign_in_failures.updated_at RETURNING failures`,
    [key, at],
  )
  return JSON.parse(row!.failures) as number[]
}

const save = (tx: SqlExecutor, key: string, failures: readonly number[], at: number) =>
  tx.run('UPDATE sign_in_failures SET failures = $1, updated_at = $2 WHERE key = $3', [
    JSON.stringify(failures),
    at,
    key,
  ])

export const signInFailures = {
  /**
   * Takes one attempt of every key, all or none: 0 when taken, else the seconds until enough
   * failures of the fullest key have left the window. Nothing is taken while a key waits.
   */
  async take(tx: SqlExecutor, limits: readonly FailureLimit[], at: number, windowMs: number): Promise<number> {
    serialOnly(tx)
    let wait = 0
    const recent: number[][] = []
    for (const { key, limit } of limits) {
      const list = (await lockedFailures(tx, key, at)).filter((t) => t > at - windowMs)
      recent.push(list)
      if (list.length >= limit) wait = Math.max(wait, 1, Math.ceil((list[list.length - limit] + windowMs - at) / 1000))
    }
    if (wait > 0) return wait
    for (let i = 0; i < limits.length; i++)
      await save(
        tx,
        limits[i].key,
        [...recent[i], at].sort((a, b) => a - b),
        at,
      )
    return 0
  },

  /** Gives back the attempt taken at `at`: it was no failure. */
  async giveBack(tx: SqlExecutor, key: string, at: number): Promise<void> {
    serialOnly(tx)
    const list = await lockedFailures(tx, key, at)
    const index = list.lastIndexOf(at)
    if (index < 0) return
    list.splice(index, 1)
    await save(tx, key, list, at)
  },

  /** Forgets every failure of a key. */
  clear: (tx: SqlExecutor, key: string) => tx.run('DELETE FROM sign_in_failures WHERE key = $1', [key]),

  /** Deletes the rows untouched since `before`. */
  prune: (tx: SqlExecutor, before: number) => tx.run('DELETE FROM sign_in_failures WHERE updated_at < $1', [before]),
}
