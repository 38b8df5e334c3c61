/**
 * Loads external plugins from a directory (AUTOMATON_PLUGINS_DIR) at start: every `*.js`,
 * `*.mjs` and `*.ts` file directly in it, and `index.{js,mjs,ts}` of each sub-directory, in
 * name order. Test files (`*.test.*`, `*.spec.*`), declaration files and names starting with
 * `.` or `_` are skipped, so a plugin's folder can hold its tests and helpers. Works on Bun,
 * Deno and the compiled binary (each can import a file from disk at run time). No install step:
 * a plugin that imports npm packages must be bundled into one file first.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type LoadedPlugin, PluginLoadError, pluginFromModule } from '../../core/plugin/load.ts'

const PLUGIN_FILE = /\.(m?js|ts)$/
const SKIPPED = /(^[._])|(\.(test|spec)\.[cm]?[jt]s$)|(\.d\.ts$)/

/** The files that would be loaded from a directory, absolute, in load order. */
export function pluginFiles(dir: string): string[] {
  const root = resolve(dir)
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new PluginLoadError(dir, 'AUTOMATON_PLUGINS_DIR is not a directory')
  const files: string[] = []
  for (const name of readdirSync(root).sort()) {
    if (SKIPPED.test(name)) continue
    const path = join(root, name)
    const stat = statSync(path)
    if (stat.isFile() && PLUGIN_FILE.test(name)) files.push(path)
    else if (stat.isDirectory() && name !== 'node_modules') {
      const index = ['index.ts', 'index.mjs', 'index.js'].map((f) => join(path, f)).find((f) => existsSync(f))
      if (index) files.push(index)
    }
  }
  return files
}

/**
 * What went wrong importing a plugin file, with the line and column of a syntax error: Bun
 * reports them in `position` (1-based line and column), Deno in the message itself.
 */
function importProblem(error: unknown, source: string): string {
  const message = error instanceof Error ? error.message : String(error)
  const position = (error as { position?: { line?: number; column?: number; lineText?: string } } | null)?.position
  if (position && typeof position.line === 'number') {
    const at = `${source}:${position.line}:${position.column ?? 1}`
    return `${message} at ${at}${position.lineText ? `\n  ${position.lineText.trim()}` : ''}`
  }
  return message
}

/** Imports and interprets every plugin file of a directory; the first problem stops the start. */
export async function loadPluginsDir(dir: string): Promise<LoadedPlugin[]> {
  const root = resolve(dir)
  const loaded: LoadedPlugin[] = []
  for (const file of pluginFiles(dir)) {
    const source = file.slice(root.length + 1)
    let module: unknown
    try {
      module = await import(pathToFileURL(file).href)
    } catch (error) {
      throw new PluginLoadError(source, `could not be imported: ${importProblem(error, source)}`)
    }
    loaded.push({ plugin: await pluginFromModule(module, source), source })
  }
  return loaded
}
