/**
 * Builds the web console: one script and one style sheet in console/dist, minified, with no
 * source from outside the repository at run time (no CDN, no web fonts). The workflow editor is
 * split off into chunks the first page loads only when a workflow is opened; `chunks.js` lists
 * them so that the server (and the single binary) carries them. Fails when the first page's
 * compressed script and style pass the budget, or the editor's chunks pass theirs.
 *   bun console/build.ts
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { BunPlugin } from 'bun'

/** Compressed script and style of the first page, in bytes. */
export const BUDGET = 150 * 1024
/** Compressed chunks loaded when the editor opens, in bytes. */
export const EDITOR_BUDGET = 400 * 1024
const here = import.meta.dir
const out = join(here, 'dist')

/** React libraries (the editor's node graph) run on Preact through its compatibility layer. */
const preactCompat: BunPlugin = {
  name: 'react-to-preact',
  setup(build) {
    build.onResolve({ filter: /^react(-dom)?(\/.*)?$/ }, (args) => ({
      path: require.resolve(args.path.includes('jsx-runtime') ? 'preact/jsx-runtime' : 'preact/compat'),
    }))
  },
}

const gz = (text: string) => gzipSync(text).length

export async function buildConsole(): Promise<{ script: number; style: number; total: number; editor: number }> {
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const result = await Bun.build({
    entrypoints: [join(here, 'src', 'main.tsx')],
    minify: true,
    splitting: true,
    target: 'browser',
    format: 'esm',
    naming: { entry: 'app.[ext]', chunk: '[name]-[hash].[ext]' },
    publicPath: '/console/',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [preactCompat],
  })
  if (!result.success) throw new AggregateError(result.logs, 'the console did not build')
  const files = new Map<string, string>()
  for (const output of result.outputs) files.set(output.path.replace(/^.*[\\/]/, ''), await output.text())
  for (const [name, text] of files) writeFileSync(join(out, name), text)
  const chunks = [...files.keys()].filter((name) => name !== 'app.js')
  writeFileSync(join(out, 'chunks.js'), chunkList(chunks))
  const script = files.get('app.js')!
  // The first page loads the chunks its script imports statically; the others are the editor's.
  const firstPage = chunks.filter((name) => staticallyImported(script, name))
  const sheets = [join(here, 'src', 'style.css'), graphStyle(), join(here, 'src', 'editor', 'editor.css')]
  const style = sheets
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s*\n\s*/g, '\n')
  writeFileSync(join(out, 'app.css'), style)
  const scriptSize = gz(script) + firstPage.reduce((sum, name) => sum + gz(files.get(name)!), 0)
  const editor = chunks.filter((name) => !firstPage.includes(name)).reduce((sum, name) => sum + gz(files.get(name)!), 0)
  const sizes = { script: scriptSize, style: gz(style), total: 0, editor }
  sizes.total = sizes.script + sizes.style
  return sizes
}

const staticallyImported = (script: string, name: string) =>
  new RegExp(`(from|import)\\s*"/console/${name.replace(/[.-]/g, '\\$&')}"`).test(script)

/** The node graph's base style sheet (layout of the canvas, handles, minimap), not its theme. */
const graphStyle = () => require.resolve('@xyflow/react/dist/base.css')

/** A module the server imports: each chunk's text by its name, through literal imports the single binary follows. */
function chunkList(chunks: string[]): string {
  const lines = chunks.map((name, i) => `import c${i} from './${name}' with { type: 'text' }`)
  const entries = chunks.map((name, i) => `  ${JSON.stringify(name)}: c${i},`)
  return `${lines.join('\n')}\nexport default {\n${entries.join('\n')}\n}\n`
}

if (import.meta.main) {
  const sizes = await buildConsole()
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  console.log(
    `console built: script ${kb(sizes.script)}, style ${kb(sizes.style)} compressed; budget ${kb(BUDGET)}; editor chunks ${kb(sizes.editor)} (budget ${kb(EDITOR_BUDGET)})`,
  )
  if (sizes.total > BUDGET) {
    console.error(`the console's first page is ${kb(sizes.total)} compressed, over its budget of ${kb(BUDGET)}`)
    process.exit(1)
  }
  if (sizes.editor > EDITOR_BUDGET) {
    console.error(`the editor's chunks are ${kb(sizes.editor)} compressed, over their budget of ${kb(EDITOR_BUDGET)}`)
    process.exit(1)
  }
}
