import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A temporary directory, removed by the returned function. */
export function tempDir(prefix = 'automaton-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}

/** Paths of a file called `name`, each in a temporary directory of its own; `remove()` removes them all (for afterEach). */
export function tempFiles(name: string): { next(): string; remove(): void } {
  const dirs: Array<{ path: string; remove(): void }> = []
  return {
    next() {
      const dir = tempDir()
      dirs.push(dir)
      return join(dir.path, name)
    },
    remove() {
      for (const d of dirs.splice(0)) d.remove()
    },
  }
}
