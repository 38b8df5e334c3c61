/**
 * External plugins from AUTOMATON_PLUGINS_DIR: plain ESM files outside the project, loaded at
 * start without an install step; an invalid one stops the start with its file and problem named;
 * one that throws at run time fails its node, never the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../core/config.ts'
import { PluginLoadError } from '../../core/plugin/load.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import { openSystem } from '../../main.ts'
import { ROOT, runCli } from '../helpers/process.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { tempDir } from '../helpers/tmp.ts'
import { createWorkflow, linear, runAndWait } from '../helpers/workflows.ts'

const action = (type: string, run: string) =>
  `defineAction({ type: '${type}', name: '${type}', description: 'test', payload: Type.Object({ name: Type.Optional(Type.String()) }), result: Type.Any(), run: ${run} })`

function writePlugins(dir: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
}

describe('external plugins', () => {
  const dir = tempDir('automaton-plugins-')
  let t: TestSystem
  beforeAll(async () => {
    writePlugins(dir.path, {
      'a-function.mjs': `export default ({ definePlugin, defineAction, Type }) => definePlugin({ id: 'afn', actions: [${action('afn-hello', '(ctx) => ({ hello: ctx.payload.name })')}] })`,
      'b-object.ts': `import { definePlugin, defineAction, Type } from '${join(ROOT, 'core/plugin/sdk.ts')}'\nexport default definePlugin({ id: 'bobj', actions: [${action('bobj-x', '() => ({ ok: true })')}] })`,
      'c-typed.ts': `import type { Sdk } from 'automaton/sdk'\nexport default async ({ definePlugin, defineAction, Type }: Sdk) => definePlugin({ id: 'cts', actions: [${action('cts-sync-throw', '() => { throw new Error("sync kaput") }')}, ${action('cts-async-throw', 'async () => { await null; throw new TypeError("async kaput") }')}, ${action('cts-throw-string', '() => { throw "a string" }')}] })`,
      'd-dir/index.mjs': `import { greet } from './helper.mjs'\nexport default ({ definePlugin, defineAction, Type }) => definePlugin({ id: 'ddir', actions: [${action('ddir-greet', '(ctx) => ({ text: greet(ctx.payload.name) })')}] })`,
      'd-dir/helper.mjs': `export const greet = (name) => 'hi ' + name`,
      'e.test.mjs': 'throw new Error("a test file must not be loaded")',
      '_draft.mjs': 'throw new Error("a draft must not be loaded")',
      'notes.md': '# not a plugin',
    })
    t = await openTestSystem('sqlite', { AUTOMATON_PLUGINS_DIR: dir.path })
  })
  afterAll(async () => {
    await t.close()
    dir.remove()
  })

  it('loads every plugin file and folder, skipping tests, drafts and other files', async () => {
    const actions = (await t.call('GET', '/v1/actions')).body.data
    const external = actions
      .filter((a: { plugin: string }) => ['afn', 'bobj', 'cts', 'ddir'].includes(a.plugin))
      .map((a: { type: string }) => a.type)
    expect(external.sort()).toEqual([
      'afn-hello',
      'bobj-x',
      'cts-async-throw',
      'cts-sync-throw',
      'cts-throw-string',
      'ddir-greet',
    ])
  })

  it('runs their actions like built-in ones', async () => {
    const w = await createWorkflow(t, {
      definition: linear(
        {
          a: { type: 'afn-hello', payload: { name: '{{$trigger.body.who}}' } },
          b: { type: 'ddir-greet', payload: { name: '{{a.result.hello}}' } },
        },
        ['a', 'b'],
      ),
    })
    const run = await runAndWait(t, w.id, { who: 'Ada' })
    expect(run.status).toBe('success')
    expect(run.nodes.b.result).toEqual({ text: 'hi Ada' })
  })

  it('fails only the node when a handler throws, and the server carries on', async () => {
    for (const [type, message] of [
      ['cts-sync-throw', 'sync kaput'],
      ['cts-async-throw', 'async kaput'],
      ['cts-throw-string', 'a string'],
    ]) {
      const w = await createWorkflow(t, { definition: linear({ boom: { type, payload: {} } }, ['boom']) })
      const run = await runAndWait(t, w.id)
      expect(run.status).toBe('failure')
      expect(run.nodes.boom).toMatchObject({ status: 'failure', error: message })
    }
    expect((await t.call('GET', '/healthz', { key: null })).status).toBe(200)
    const ok = await createWorkflow(t, {
      definition: linear({ a: { type: 'afn-hello', payload: { name: 'x' } } }, ['a']),
    })
    expect((await runAndWait(t, ok.id)).status).toBe('success')
  })
})

describe('an invalid external plugin', () => {
  const cases: Array<[string, string, string]> = [
    ['no-default.mjs', 'export const plugin = {}', 'plugin file no-default.mjs: has no default export'],
    [
      'throws.mjs',
      'export default () => { throw new Error("boom") }',
      'plugin file throws.mjs: its default export threw: boom',
    ],
    [
      'not-a-plugin.mjs',
      'export default () => 42',
      'plugin file not-a-plugin.mjs: the default export must be a plugin object',
    ],
    [
      'no-run.mjs',
      `export default ({ definePlugin, defineAction, Type }) => definePlugin({ id: 'norun', actions: [defineAction({ type: 'norun-x', name: 'x', description: '', payload: Type.Object({}), result: Type.Any() })] })`,
      'plugin file no-run.mjs: plugin "norun": action "norun-x" needs a run(ctx) function',
    ],
    [
      'clash.mjs',
      `export default ({ definePlugin, defineAction, Type }) => definePlugin({ id: 'clash', actions: [${action('log', '() => ({})')}] })`,
      'plugin file clash.mjs: plugin "clash": action type "log" is already provided by plugin "core"',
    ],
    [
      'same-id.mjs',
      `export default ({ definePlugin }) => definePlugin({ id: 'core' })`,
      'plugin file same-id.mjs: plugin "core": another plugin has the same id',
    ],
    [
      'syntax.mjs',
      'export default (\nconst x = 1\n',
      'plugin file syntax.mjs: could not be imported: Unexpected const at syntax.mjs:2:1',
    ],
  ]

  it('stops the start with a message naming the file, the plugin and the problem', async () => {
    for (const [file, text, message] of cases) {
      const dir = tempDir('automaton-bad-plugin-')
      writePlugins(dir.path, { [file]: text })
      const config = loadConfig({ AUTOMATON_DATA_DIR: dir.path, AUTOMATON_PLUGINS_DIR: dir.path })
      const error = await openSystem(config, { logger: silentLogger, engine: false }).then(
        (s) => s.close().then(() => null),
        (e: unknown) => e,
      )
      dir.remove()
      expect(error).toBeInstanceOf(PluginLoadError)
      expect(String((error as Error).message)).toStartWith(message)
    }
    const missing = loadConfig({ AUTOMATON_PLUGINS_DIR: '/nonexistent/automaton-plugins' })
    expect(openSystem(missing, { logger: silentLogger, engine: false })).rejects.toThrow(
      'AUTOMATON_PLUGINS_DIR is not a directory',
    )
  })

  it('makes the process exit 1 with the message on stderr', async () => {
    const dir = tempDir('automaton-bad-plugin-')
    writePlugins(dir.path, { [cases[3][0]]: cases[3][1] })
    const result = await runCli(['migrate'], { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_PLUGINS_DIR: dir.path })
    dir.remove()
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe(`automaton: ${cases[3][2]}`)
  })
})
