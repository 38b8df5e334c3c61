/**
 * `npm run bench`: runs every benchmark and prints one table, with the machine and the date,
 * ready to paste into docs/BENCHMARKS.md. `npm run bench -- store engine` runs only the named
 * ones; `--scale 0.25` shrinks every workload (quicker, noisier). The Postgres benchmarks need
 * AUTOMATON_TEST_DATABASE_URL and say so when it is unset. `faults` starts its own Postgres and
 * NATS (as root it also mounts a tmpfs) and takes about a quarter of an hour.
 */
import os from 'node:os'

interface Result {
  name: string
  value: number
  unit: string
  note?: string
}

const BENCHES: Record<string, () => Promise<{ run: (o?: { scale?: number }) => Promise<Result[]> }>> = {
  store: () => import('./store-writes.ts'),
  engine: () => import('./engine.ts'),
  xstate: () => import('./xstate.ts'),
  sustained: () => import('./sustained.ts'),
  'sustained-http': () => import('./sustained-http.ts'),
  fanout: () => import('./fanout.ts'),
  scale: () => import('./scale.ts'),
  hooks: () => import('./hooks.ts'),
  retention: () => import('./retention.ts'),
  soak: () => import('./soak.ts'),
  universe: () => import('./universe.ts'),
  templates: () => import('./templates.ts'),
  x402: () => import('./x402.ts'),
  hostile: () => import('./hostile.ts'),
  faults: () => import('./faults.ts'),
  cli: () => import('./cli.ts'),
  console: () => import('./console.ts'),
  fairness: () => import('./fairness.ts'),
}

const args = process.argv.slice(2)
const scaleAt = args.indexOf('--scale')
const scale = scaleAt >= 0 ? Number(args[scaleAt + 1]) : 1
if (!(scale > 0)) {
  console.error('--scale takes a positive number')
  process.exit(2)
}
const wanted = args.filter((a, i) => !a.startsWith('-') && (scaleAt < 0 || i !== scaleAt + 1))
const names = wanted.length ? wanted : Object.keys(BENCHES)
const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
console.log(
  `# ${new Date().toISOString().slice(0, 10)} · ${os.cpus().length} × ${cpu} · ${Math.round(os.totalmem() / 2 ** 30)} GiB · Bun ${Bun.version} · ${os.platform()} ${os.release()}\n`,
)
console.log('| benchmark | result | note |')
console.log('|---|---:|---|')
for (const name of names) {
  const load = BENCHES[name]
  if (!load) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`)
    process.exit(2)
  }
  for (const r of await (await load()).run({ scale }))
    console.log(`| ${r.name} | ${r.value.toLocaleString('en')} ${r.unit} | ${r.note ?? ''} |`)
}
