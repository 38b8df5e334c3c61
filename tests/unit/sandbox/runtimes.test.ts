import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../../helpers/tmp.ts'

const root = join(import.meta.dir, '../../..')
const sandboxDir = join(root, 'runtime/sandbox')
const deno = join(root, 'node_modules/.bin/deno')

/**
 * Runs a transform, an in-worker timeout, an aborted endless loop with a 20 s limit and one more
 * transform, prints the outcomes, and leaves the pool open with an idle worker. The process can
 * only exit by itself if the aborted run really stopped and the idle worker does not hold it;
 * one that does not is killed when the spawn's time is up, and fails on its exit code.
 */
const script = `
import { createSandbox } from ${JSON.stringify(join(sandboxDir, 'index.ts'))}
const sandbox = createSandbox()
const { output, logs } = await sandbox.runTransform(
  'function transform(input) { console.log("on", input.runtime); return input.n * 2 }',
  { n: 21, runtime: typeof Deno === 'undefined' ? 'bun' : 'deno' },
)
const kindOf = (call) => call.then(() => 'no error', (error) => error.kind ?? error.message)
const timeout = await kindOf(sandbox.runTransform('function transform() { for (;;) {} }', null, { timeoutMs: 50 }))
const controller = new AbortController()
setTimeout(() => controller.abort(new Error('aborted')), 100)
const aborted = await kindOf(sandbox.runTransform('function transform() { for (;;) {} }', null, { timeoutMs: 20_000 }, controller.signal))
const after = (await sandbox.runTransform('function transform(input) { return input }', 'after')).output
console.log(JSON.stringify({ output, logs, timeout, aborted, after }))
`

async function runScript(command: (file: string) => string[]) {
  const dir = tempDir('automaton-sandbox-')
  try {
    const file = join(dir.path, 'script.ts')
    await Bun.write(file, script)
    const run = Bun.spawnSync(command(file), { cwd: root, timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } })
    const report = run.exitCode === 0 ? JSON.parse(run.stdout.toString()) : run.stderr.toString()
    return { exitCode: run.exitCode, report }
  } finally {
    dir.remove()
  }
}

describe('sandbox on each runtime', () => {
  it('runs on Bun, and an idle pool does not keep the process alive', async () => {
    const { exitCode, report } = await runScript((file) => [process.execPath, file])
    const expected = { output: 42, logs: ['on bun'], timeout: 'timeout', aborted: 'aborted', after: 'after' }
    expect({ exitCode, report }).toEqual({ exitCode: 0, report: expected })
  }, 30_000)

  it('runs on Deno, whose idle workers end after idleMs so the process can exit', async () => {
    // The file lives outside the repo, so Deno is pointed at the repo's config for node_modules.
    const config = join(root, 'deno.json')
    // Deno's terminate() does not stop a busy thread, and a live thread keeps the process running.
    const { exitCode, report } = await runScript((file) => [
      deno,
      'run',
      '--allow-all',
      '--no-check',
      '--config',
      config,
      file,
    ])
    const expected = { output: 42, logs: ['on deno'], timeout: 'timeout', aborted: 'aborted', after: 'after' }
    expect({ exitCode, report }).toEqual({ exitCode: 0, report: expected })
  }, 30_000)
})

describe('sandbox source', () => {
  it('uses only web-standard APIs, no runtime-specific modules or globals', () => {
    const forbidden = /from ['"](bun|node):|\b(Bun|Deno)\./
    const offenders = readdirSync(sandboxDir)
      .filter((name) => name.endsWith('.ts'))
      .filter((name) => forbidden.test(readFileSync(join(sandboxDir, name), 'utf8')))
    expect(offenders).toEqual([])
  })
})
