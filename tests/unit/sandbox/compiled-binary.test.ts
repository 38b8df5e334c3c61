import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import pkg from '../../../package.json' with { type: 'json' }
import { tempDir } from '../../helpers/tmp.ts'

const sandboxDir = join(import.meta.dir, '../../../runtime/sandbox')
const workerEntry = 'runtime/sandbox/worker.ts'
/** What package.json's build adds so the worker lands at /$bunfs/root/worker.js, beside the app. */
const entryNaming = '--entry-naming=[name].[ext]'

const entry = `
import { createManualClock } from ${JSON.stringify(join(sandboxDir, '../../core/ports/clock.ts'))}
import { createSandbox } from ${JSON.stringify(join(sandboxDir, 'index.ts'))}
import { HARD_TIMEOUT_GRACE_MS } from ${JSON.stringify(join(sandboxDir, 'pool.ts'))}
const clock = createManualClock()
const sandbox = createSandbox({}, { clock })
const result = await sandbox.runTransform(
  'async function transform(input) { console.log("inside"); return { n: input.n + 1 } }',
  { n: 41 },
)
const kindOf = (call) => call.then(() => 'no error', (error) => error.kind ?? error.message)
/** Whether a call settled with only the microtasks queued so far: no timer, I/O or worker message ran. */
const settlesAtOnce = async (call) => {
  let settled = false
  call.then(() => (settled = true), () => (settled = true))
  for (let i = 0; i < 50 && !settled; i++) await Promise.resolve()
  return settled
}
const timeout = await kindOf(sandbox.runTransform('function transform() { while (true) {} }', null, { timeoutMs: 50 }))
// A transform that never returns, while the caller's timers fire: it runs off this thread.
const controller = new AbortController()
const endless = kindOf(sandbox.runTransform('function transform() { while (true) {} }', null, { timeoutMs: 600000 }, controller.signal))
for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 1))
const offThread = !(await settlesAtOnce(endless))
controller.abort(new Error('aborted'))
const aborted = await endless
// Stuck in a built-in, the engine overruns its deadline; the pool ends the call when its clock says so.
// A warm worker first, so that the call's deadline is armed the moment it is sent.
await sandbox.runTransform('function transform() { return 1 }', null)
const stuck = sandbox.runTransform('function transform() { const a = new Array(5e4).fill("abc"); for (;;) a.join(",") }', null, { timeoutMs: 200 })
clock.advance(200 + HARD_TIMEOUT_GRACE_MS)
const hardTimeoutAtOnce = await settlesAtOnce(stuck)
const hardTimeout = await kindOf(stuck)
console.log(JSON.stringify({ output: result.output, logs: result.logs, timeout, offThread, aborted, hardTimeout, hardTimeoutAtOnce }))
`

/** Compiles `entrypoints` into `binary` and runs it in `dir`. */
function buildAndRun(dir: string, entrypoints: string[], binary: string) {
  const built = Bun.spawnSync([
    process.execPath,
    'build',
    '--compile',
    entryNaming,
    ...entrypoints,
    '--outfile',
    binary,
  ])
  expect({ exitCode: built.exitCode, stderr: built.exitCode === 0 ? '' : built.stderr.toString() }).toEqual({
    exitCode: 0,
    stderr: '',
  })
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
      // The caller's timers fired while QuickJS computed (off-thread), and the pool, not the
      // overrunning engine, ended the stuck call once its deadline and grace had passed.
      expect(report).toEqual({
        output: { n: 42 },
        logs: ['inside'],
        timeout: 'timeout',
        offThread: true,
        aborted: 'aborted',
        hardTimeout: 'timeout',
        hardTimeoutAtOnce: true,
      })
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
