/** Rows of `workers`: the processes that execute runs, with their heartbeats. */
import type { SqlExecutor } from '../ports/store.ts'

export const workers = {
  register: (db: SqlExecutor, w: { id: string; role: string; host: string; at: number }) =>
    db.run(
      `INSERT INTO workers (id, role, host, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
      [w.id, w.role, w.host, w.at],
    ),
  beat: (db: SqlExecutor, id: string, at: number) =>
    db.run('UPDATE workers SET heartbeat_at = $1 WHERE id = $2', [at, id]),
  /** The embedded process is the only worker: rows of earlier lives go. */
  removeOthers: (db: SqlExecutor, id: string) => db.run('DELETE FROM workers WHERE id <> $1', [id]),
  remove: (db: SqlExecutor, id: string) => db.run('DELETE FROM workers WHERE id = $1', [id]),
}
