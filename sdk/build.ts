/**
 * Builds the SDK as a package of its own, `@automaton/sdk`, in dist/sdk/: what a plugin in
 * another repository installs to type its plugin and test it.
 *
 * - JavaScript: `bun build` bundles the SDK (`.`) and the test kit (`./testing`) with every
 *   dependency, so the package needs nothing installed at run time. The kit's server
 *   (`createTestServer`) is the whole system; it is loaded by a dynamic import, so it is split
 *   into chunks that only a test opening a server loads.
 * - Declarations: the repository's `tsc` (TypeScript 7) emits them (`--declaration
 *   --emitDeclarationOnly`) for the two entry points; only the files the entry points reach are
 *   kept. The kit's server reaches the composition root only at run time, so its declarations
 *   name the SDK's types and nothing of the server's; declaration problems of files outside that
 *   reach (the HTTP routes, the adapters) are not the package's and are ignored.
 *
 * Run: `npm run build:sdk`.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const OUT = join(ROOT, 'dist/sdk')
const TYPES = join(OUT, 'types')
const ENTRIES = { '.': 'core/plugin/sdk.ts', './testing': 'runtime/testing/index.ts' } as const

async function bundle(): Promise<void> {
  const result = await Bun.build({
    entrypoints: Object.values(ENTRIES).map((entry) => join(ROOT, entry)),
    root: ROOT,
    outdir: OUT,
    target: 'bun',
    format: 'esm',
    splitting: true,
    naming: { entry: '[dir]/[name].[ext]', chunk: 'chunks/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
  })
  if (!result.success) throw new AggregateError(result.logs, 'the SDK bundle failed')
}

async function declarations(): Promise<void> {
  const tsc = Bun.spawn([join(ROOT, 'node_modules/.bin/tsc'), '-p', join(ROOT, 'sdk/tsconfig.declarations.json')], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const output = `${await new Response(tsc.stdout).text()}${await new Response(tsc.stderr).text()}`
  await tsc.exited
  const kept = reachable(Object.values(ENTRIES).map((entry) => entry.replace(/\.ts$/, '.d.ts')))
  const problems = output
    .split('\n')
    .filter((line) => /error TS\d+/.test(line) && kept.has(line.slice(0, line.indexOf('(')).replace(/\.ts$/, '.d.ts')))
  if (problems.length) throw new Error(`declarations of the SDK failed:\n${problems.join('\n')}`)
  for (const file of new Bun.Glob('**/*.d.ts').scanSync(TYPES)) if (!kept.has(file)) rmSync(join(TYPES, file))
}

/** The declaration files `entries` reach through relative imports (paths relative to TYPES). */
function reachable(entries: string[]): Set<string> {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    const path = join(TYPES, file)
    if (!existsSync(path)) throw new Error(`no declarations were emitted for ${file}`)
    seen.add(file)
    const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')
    for (const [, spec] of code.matchAll(/(?:from|import\(|import)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      visit(relative(TYPES, join(dirname(path), spec.replace(/\.ts$/, '.d.ts').replace(/\.js$/, '.d.ts'))))
    }
  }
  for (const entry of entries) visit(entry)
  return seen
}

function manifest(): void {
  const repo = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const exportOf = (entry: string) => ({
    types: `./types/${entry.replace(/\.ts$/, '.d.ts')}`,
    default: `./${entry.replace(/\.ts$/, '.js')}`,
  })
  const pkg = {
    name: '@automaton/sdk',
    version: repo.version,
    description: "Automaton's plugin SDK and its test kit",
    type: 'module',
    exports: Object.fromEntries(Object.entries(ENTRIES).map(([key, entry]) => [key, exportOf(entry)])),
    types: `./types/${ENTRIES['.'].replace(/\.ts$/, '.d.ts')}`,
    // The declarations name TypeBox's types; the JavaScript has it bundled.
    dependencies: { '@sinclair/typebox': repo.dependencies['@sinclair/typebox'] },
    peerDependencies: { '@types/bun': '*' },
    peerDependenciesMeta: { '@types/bun': { optional: true } },
    engines: { bun: `>=${repo.devDependencies.bun}` },
  }
  writeFileSync(join(OUT, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
  cpSync(join(ROOT, 'sdk/README.md'), join(OUT, 'README.md'))
}

rmSync(OUT, { recursive: true, force: true })
mkdirSync(OUT, { recursive: true })
await bundle()
await declarations()
manifest()
console.log(`@automaton/sdk written to ${relative(process.cwd(), OUT) || '.'}`)
