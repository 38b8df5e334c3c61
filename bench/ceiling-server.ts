/**
 * The ceiling: a bare Bun server that does the same durable work as accepting a webhook run —
 * parse the JSON body, insert one run-sized row, answer after the commit. No framework, no
 * validation, no engine. Prints its port on stdout.
 *   bun bench/ceiling-server.ts <database file>     SQLite (WAL, synchronous=FULL): the writes of
 *                                                   each tick commit together
 *   bun bench/ceiling-server.ts <postgres url>      postgres.js: each tick's rows in one multi-row
 *                                                   INSERT (a few ticks may be committing at once)
 */
import { Database } from 'bun:sqlite'
import postgres from 'postgres'

type Row = [string, string, string, string, number]
const target = process.argv[2]

function sqliteSink(path: string): (rows: Row[]) => Promise<void> {
  const db = new Database(path, { create: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = FULL')
  db.run(
    'CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, workflow_id TEXT, status TEXT, trigger_event TEXT, started_at BIGINT)',
  )
  const insert = db.prepare('INSERT INTO runs VALUES (?1, ?2, ?3, ?4, ?5)')
  const all = db.transaction((rows: Row[]) => {
    for (const row of rows) insert.run(...row)
  })
  return async (rows) => all(rows)
}

async function postgresSink(url: string): Promise<(rows: Row[]) => Promise<void>> {
  const sql = postgres(url, { max: 4, onnotice: () => {} })
  await sql.unsafe(
    'CREATE TABLE IF NOT EXISTS ceiling_runs (id TEXT PRIMARY KEY, workflow_id TEXT, status TEXT, trigger_event TEXT, started_at BIGINT)',
  )
  return async (rows) => {
    const params = rows.flat()
    const values = rows
      .map((_, r) => `($${r * 5 + 1}, $${r * 5 + 2}, $${r * 5 + 3}, $${r * 5 + 4}, $${r * 5 + 5})`)
      .join(', ')
    await sql.unsafe(
      `INSERT INTO ceiling_runs (id, workflow_id, status, trigger_event, started_at) VALUES ${values}`,
      params,
    )
  }
}

const sink = target.startsWith('postgres') ? await postgresSink(target) : sqliteSink(target)
let pending: Array<{ row: Row; done: () => void }> = []
let scheduled = false
const flush = () => {
  scheduled = false
  const batch = pending
  pending = []
  // Postgres binds at most 65,535 parameters in a statement: 10,000 rows of five at a time.
  for (let i = 0; i < batch.length; i += 10_000) {
    const part = batch.slice(i, i + 10_000)
    void sink(part.map((p) => p.row)).then(() => {
      for (const p of part) p.done()
    })
  }
}
let n = 0
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const body = await request.json()
    const id = `run_${++n}_${Math.random().toString(36).slice(2)}`
    await new Promise<void>((done) => {
      pending.push({
        row: [
          id,
          'wf_bench',
          'running',
          JSON.stringify({ type: 'webhook', body, headers: {}, receivedAt: new Date().toISOString() }),
          Date.now(),
        ],
        done,
      })
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    })
    return Response.json({ code: 200, data: { action: 'triggered', runIds: [id] } })
  },
})
console.log(server.port)
