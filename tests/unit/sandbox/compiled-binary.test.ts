import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import pkg from '../../../package.json' with { type: 'json' }
import { tempDir } from '../../helpers/tmp.ts'

const sandboxDir = join(import.meta.dir, '../../../runtime/sandbox')
const workerEntry = 'runtime/sandbox/worker.ts'
/** What package.json's build adds so the worker lands at /$bunfs/root/worker.js, beside the app. */
const entryNaming = '--entry-naming=[name].[ext]'

const entry = `
import { createSandbox } from ${JSON.stringify(join(sandboxDir, 'index.ts'))}
const sandbox = createSandbox()
const result = await sandbox.runTransform(
  'async function transform(input) { console.log("inside"); return { n: input.n + 1 } }',
  { n: 41 },
)
const kindOf = (call) => call.then(() => 'no error', (error) => error.kind)
const timeout = await kindOf(sandbox.runTransform('function transform() { while (true) {} }', null, { timeoutMs: 50 }))
let ticks = 0
const timer = setInterval(() => ticks++, 10)
await sandbox.runTransform('function transform() { const end = Date.now() + 300; while (Date.now() < end) {} }', null)
clearInterval(timer)
const started = performance.now()
const stuck = 'function transform() { const a = new Array(5e4).fill("abc"); for (;;) a.join(",") }'
const hardTimeout = await kindOf(sandbox.runTransform(stuck, null, { timeoutMs: 200 }))
const hardTimeoutMs = performance.now() - started
console.log(JSON.stringify({ output: result.output, logs: result.logs, timeout, ticks, hardTimeout, hardTimeoutMs }))
`

/** Compiles `entrypoints` into `binary` and runs it in `dir`. */
function buildAndRun(dir: string, entrypoints: string[], binary: string) {
  const built = Bun.spawnSync([process.execPath, 'build', '--compile', entryNaming, ...entrypoints, '--outfile', binary])
  expect({ exitCode: built.exitCode, stderr: built.exitCode === 0 ? '' : built.stderr.toString() }).toEqual({ exitCode: 0, stderr: '' })
  return Bun.spawnSync([binary], { cwd: dir, timeout: 30_000 })
}

describe('sandbox in a compiled binary', () => {
  it('is built with the worker entry, as the build script does', () => {
    expect(pkg.scripts.build).toContain(`--entry-naming='[name].[ext]'`)
    expect(pkg.scripts.build).toContain(` main.ts ${workerEntry} `)
  })

  it('runs transforms on the worker pool from the embedded worker entry and WASM, then exits', async () => {
    const dir = tempDir('automaton-sandbox-')
    try {
      const source = join(dir.path, 'entry.ts')
      await Bun.write(source, entry)
      const run = buildAndRun(dir.path, [source, join(sandboxDir, 'worker.ts')], join(dir.path, 'sbx'))
      expect({ exitCode: run.exitCode, stderr: run.stderr.toString() }).toEqual({ exitCode: 0, stderr: '' })
      const report = JSON.parse(run.stdout.toString())
      expect(report).toMatchObject({ output: { n: 42 }, logs: ['inside'], timeout: 'timeout', hardTimeout: 'timeout' })
      // The caller's timers kept firing while QuickJS computed, so the transform ran off-thread.
      expect(report.ticks).toBeGreaterThan(10)
      // The in-process run overran this by seconds; the pool terminated the worker instead.
      expect(report.hardTimeoutMs).toBeLessThan(200 + 500)
    } finally {
      dir.remove()
    }
  }, 60_000)

  it('fails transforms clearly when the worker entry was left out of the build', async () => {
    const dir = tempDir('automaton-sandbox-')
    try {
      const source = join(dir.path, 'entry.ts')
      await Bun.write(source, entry)
      const run = buildAndRun(dir.path, [source], join(dir.path, 'sbx'))
      expect(run.exitCode).not.toBe(0)
      expect(run.stderr.toString()).toContain('the sandbox worker failed to start')
    } finally {
      dir.remove()
    }
  }, 60_000)
})
