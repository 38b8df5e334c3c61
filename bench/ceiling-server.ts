/**
 * The ceiling: a bare Bun server that does the same durable work as accepting a webhook run —
 * parse the JSON body, insert one run-sized row into SQLite (WAL, synchronous=FULL), commit
 * the writes of each tick together, answer after the commit. No framework, no validation, no
 * engine. Prints its port on stdout.
 *   bun bench/ceiling-server.ts <database file>
 */
import { Database } from 'bun:sqlite'

const db = new Database(process.argv[2], { create: true })
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA synchronous = FULL')
db.run('CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, workflow_id TEXT, status TEXT, trigger_event TEXT, started_at BIGINT)')
const insert = db.prepare('INSERT INTO runs VALUES (?1, ?2, ?3, ?4, ?5)')
let pending: Array<{ row: unknown[]; done: () => void }> = []
let scheduled = false
const flush = () => {
  scheduled = false
  const batch = pending
  pending = []
  db.transaction(() => {
    for (const p of batch) insert.run(...(p.row as never[]))
  })()
  for (const p of batch) p.done()
}
let n = 0
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const body = await request.json()
    const id = `run_${++n}_${Math.random().toString(36).slice(2)}`
    await new Promise<void>((done) => {
      pending.push({ row: [id, 'wf_bench', 'running', JSON.stringify({ type: 'webhook', body, headers: {}, receivedAt: new Date().toISOString() }), Date.now()], done })
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    })
    return Response.json({ code: 200, data: { action: 'triggered', runIds: [id] } })
  },
})
console.log(server.port)
