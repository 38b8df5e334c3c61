/**
 * A SQLite test store in a directory of its own, opened by the given adapter (bun:sqlite, or
 * node:sqlite on Deno); this module imports no runtime's own SQLite, so both can use it.
 */
import { join } from 'node:path'
import type { Store } from '../../core/ports/store.ts'
import type { TestStore } from './stores.ts'
import { tempDir } from './tmp.ts'

export function openSqliteTestStore(open: (options: { path: string }) => Store): TestStore {
  const dir = tempDir()
  const path = join(dir.path, 'automaton.db')
  const opened: Store[] = []
  const reopen = () => {
    const s = open({ path })
    opened.push(s)
    return s
  }
  return {
    store: reopen(),
    reopen,
    location: { dataDir: dir.path },
    async dispose() {
      for (const s of opened) await s.close()
      dir.remove()
    },
  }
}
