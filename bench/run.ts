/**
 * `npm run bench`: runs every benchmark and prints one table, with the machine and the date,
 * ready to paste into docs/BENCHMARKS.md. `npm run bench -- store` runs only the named ones.
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
  hooks: () => import('./hooks.ts'),
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const names = wanted.length ? wanted : Object.keys(BENCHES)
const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
console.log(`# ${new Date().toISOString().slice(0, 10)} · ${os.cpus().length} × ${cpu} · ${Math.round(os.totalmem() / 2 ** 30)} GiB · Bun ${Bun.version} · ${os.platform()} ${os.release()}\n`)
console.log('| benchmark | result | note |')
console.log('|---|---:|---|')
for (const name of names) {
  const load = BENCHES[name]
  if (!load) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`)
    process.exit(2)
  }
  for (const r of await (await load()).run()) console.log(`| ${r.name} | ${r.value.toLocaleString('en')} ${r.unit} | ${r.note ?? ''} |`)
}
