/**
 * The SDK as a package of its own: `npm run build:sdk` writes dist/sdk/, and a plugin in another
 * repository (a temporary directory, with the package copied into its node_modules as an install
 * would, and no network) type-checks with a plain tsconfig and runs its kit tests with Bun,
 * the kit's server included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const BIN = join(ROOT, 'node_modules/.bin')

/** A plain tsconfig, as `bun init` writes one: Bun's types come from `@types/bun`. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'Preserve',
    moduleResolution: 'bundler',
    types: ['bun'],
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
  },
  include: ['*.ts'],
}

/** A test of the example plugin on the kit's server (the whole system, from the package). */
const SERVER_TEST = `import { afterAll, expect, it } from 'bun:test'
import { createTestServer, loadPlugin } from '@automaton/sdk/testing'
import weather from './weather.ts'

const { plugin } = await loadPlugin(weather)
const server = await createTestServer({ plugins: [plugin] })
afterAll(() => server.close())

async function sign(raw: string): Promise<Record<string, string>> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('whs'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(raw))
  return { 'x-weather-signature': Buffer.from(mac).toString('hex') }
}

it('starts one run per signed alert', async () => {
  await server.connectors.create('weather', { baseUrl: 'https://api.weather.example', apiKey: 'k', webhookSecret: 'whs' })
  const wf = await server.publish({ triggerNodeIds: ['root'], nodes: { root: { type: 'weather-alert', payload: { city: 'Oslo' } } } })
  const body = { id: 'a1', city: 'Oslo', level: 'red', message: 'storm' }
  expect((await server.deliver('alerts', { body, sign })).status).toBe(200)
  expect((await server.deliver('alerts', { body, sign })).body).toMatchObject({ action: 'skipped' })
  expect((await server.deliver('alerts', { body, headers: { 'x-weather-signature': 'ab' } })).status).toBe(401)
  const runs = await server.runs(wf.id)
  expect(runs).toHaveLength(1)
  expect(await server.run(runs[0].id)).toMatchObject({ status: 'success' })
})
`

async function exec(cmd: string[], cwd: string): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(cmd, { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NO_COLOR: '1' } })
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code: await child.exited, output: `${out}${err}` }
}

/** The example plugin and its tests, importing the package instead of the repository's aliases. */
function copyExample(dir: string) {
  const rename = (text: string) =>
    text.replaceAll("'automaton/sdk'", "'@automaton/sdk'").replaceAll("'automaton/testing'", "'@automaton/sdk/testing'")
  for (const file of ['weather.ts', 'weather.test.ts'])
    writeFileSync(join(dir, file), rename(readFileSync(join(ROOT, 'examples/weather', file), 'utf8')))
  writeFileSync(join(dir, 'weather.server.test.ts'), SERVER_TEST)
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2))
}

/** node_modules as an install would leave it: a copy of the package, and its dependencies. */
function install(dir: string) {
  const modules = join(dir, 'node_modules')
  mkdirSync(join(modules, '@automaton'), { recursive: true })
  cpSync(join(ROOT, 'dist/sdk'), join(modules, '@automaton/sdk'), { recursive: true })
  for (const dep of ['@sinclair/typebox', '@types/bun', 'bun-types', '@types/node', 'undici-types']) {
    if (!existsSync(join(ROOT, 'node_modules', dep))) continue
    mkdirSync(join(modules, dep, '..'), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules', dep), join(modules, dep), 'dir')
  }
}

describe('the SDK package', () => {
  let dir: string
  beforeAll(async () => {
    const build = await exec([join(BIN, 'bun'), 'sdk/build.ts'], ROOT)
    if (build.code !== 0) throw new Error(`build:sdk failed:\n${build.output}`)
    dir = mkdtempSync(join(tmpdir(), 'automaton-plugin-'))
    copyExample(dir)
    install(dir)
  }, 60_000)
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('is a package of its own: the SDK and the kit, with declarations', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'dist/sdk/package.json'), 'utf8'))
    expect(pkg).toMatchObject({ name: '@automaton/sdk', type: 'module' })
    for (const entry of ['.', './testing']) {
      expect(existsSync(join(ROOT, 'dist/sdk', pkg.exports[entry].default))).toBe(true)
      expect(existsSync(join(ROOT, 'dist/sdk', pkg.exports[entry].types))).toBe(true)
    }
  })

  it('type-checks a plugin in another repository with a plain tsconfig', async () => {
    const tsc = await exec([join(BIN, 'tsc'), '-p', '.'], dir)
    expect(tsc.output).toBe('')
    expect(tsc.code).toBe(0)
    writeFileSync(
      join(dir, 'wrong.ts'),
      "import { runPoll } from '@automaton/sdk/testing'\nrunPoll(null as never, { seen: 1 })\n",
    )
    const wrong = await exec([join(BIN, 'tsc'), '-p', '.'], dir)
    rmSync(join(dir, 'wrong.ts'))
    expect(wrong.output).toContain('wrong.ts(2,')
  }, 30_000)

  it("runs the plugin's kit tests, the kit's server included", async () => {
    const test = await exec([join(BIN, 'bun'), 'test', '--timeout', '20000'], dir)
    expect(test.output).toContain(' 0 fail')
    expect(test.output).toContain('9 pass')
    expect(test.code).toBe(0)
  }, 30_000)
})
