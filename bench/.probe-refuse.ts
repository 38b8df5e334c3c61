// temporary probe (not committed): CPU per refused (429) webhook answer vs per accepted one
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { api, BUN, ROOT, startServer } from '../tests/helpers/process.ts'
import { tempDir } from '../tests/helpers/tmp.ts'

const KEY = 'svcsk_bench_soak_bootstrap_key_0123456789abcdef'
const cpuOf = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10 }
const hang = Bun.serve({ port: 0, fetch: () => new Promise<Response>(() => {}) })
const profile = process.argv.includes('--profile')
const dir = tempDir('probe-')
const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_BOOTSTRAP_KEY: KEY, AUTOMATON_LOG_LEVEL: 'info', AUTOMATON_WORKER_CONCURRENCY: '1', AUTOMATON_MAX_BACKLOG: '2', AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' }
const server = await startServer({ env, ...(profile ? { cmd: [BUN, '--cpu-prof', `--cpu-prof-dir=/tmp/probe`, join(ROOT, 'main.ts'), 'serve'] } : {}) })
const created = await api(server.url, 'POST', '/v1/workflows', KEY, { definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual', children: ['a'] }, a: { type: 'http-request', payload: { url: `http://127.0.0.1:${hang.port}/x` } } } } })
console.error(created.status, JSON.stringify(created.body).slice(0, 200))
const w = (await api(server.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)).body.data
const url = `${server.url}/v1/webhooks/${w.triggerSecret}`
for (let i = 0; i < 3; i++) console.error((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status)
await Bun.sleep(500)
const load = async (n: number) => {
  const c0 = cpuOf(server.pid)
  const client = Bun.spawn([BUN, join(ROOT, 'bench', 'load-client.ts'), url, String(n), '32', '0'], { stdout: 'pipe', stderr: 'inherit' })
  const out = JSON.parse(await new Response(client.stdout).text())
  const c1 = cpuOf(server.pid)
  console.log(JSON.stringify({ refused: out.refused, accepted: out.accepted, rps: Math.round(out.rps), p99: out.p99, cpuUsPerAnswer: Math.round(((c1 - c0) * 1000) / out.count) }))
}
await load(5000)
await load(20000)
await load(20000)
hang.stop(true)
await Bun.sleep(300)
await server.stop("SIGTERM")
await Bun.sleep(1000)
process.exit(0)
