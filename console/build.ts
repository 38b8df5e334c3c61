/**
 * Builds the web console: one script and one style sheet in console/dist, minified, with no
 * source from outside the repository at run time (no CDN, no web fonts). Fails when the first
 * page's compressed script and style pass the budget.
 *   bun console/build.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

/** Compressed script and style of the first page, in bytes. */
export const BUDGET = 150 * 1024
const here = import.meta.dir
const out = join(here, 'dist')

export async function buildConsole(): Promise<{ script: number; style: number; total: number }> {
  mkdirSync(out, { recursive: true })
  const result = await Bun.build({
    entrypoints: [join(here, 'src', 'main.tsx')],
    minify: true,
    target: 'browser',
    format: 'esm',
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  if (!result.success) throw new AggregateError(result.logs, 'the console did not build')
  const script = await result.outputs[0].text()
  writeFileSync(join(out, 'app.js'), script)
  const style = readFileSync(join(here, 'src', 'style.css'), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s*\n\s*/g, '\n')
  writeFileSync(join(out, 'app.css'), style)
  const sizes = { script: gzipSync(script).length, style: gzipSync(style).length, total: 0 }
  sizes.total = sizes.script + sizes.style
  return sizes
}

if (import.meta.main) {
  const sizes = await buildConsole()
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  console.log(`console built: script ${kb(sizes.script)}, style ${kb(sizes.style)} compressed; budget ${kb(BUDGET)}`)
  if (sizes.total > BUDGET) {
    console.error(`the console's first page is ${kb(sizes.total)} compressed, over its budget of ${kb(BUDGET)}`)
    process.exit(1)
  }
}
