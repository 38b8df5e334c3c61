/**
 * The store contract on Deno, over node:sqlite: run by store-deno.test.ts as
 * `deno run --import-map tests/contract/deno-import-map.json tests/contract/store-deno.ts`, the
 * map pointing `bun:test` at a small runner (tests/helpers/deno-bun-test.ts). Exits 1 when a
 * test failed.
 */
import { join } from 'node:path'
import { nodeSqliteStore } from '../../adapters/sqlite/node-store.ts'
import type { Store } from '../../core/ports/store.ts'
import { runCollected } from '../helpers/deno-bun-test.ts'
import type { TestStore } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'
import { describeStoreContract } from './store.contract.ts'

async function openNodeSqliteTestStore(): Promise<TestStore> {
  const dir = tempDir()
  const path = join(dir.path, 'automaton.db')
  const opened: Store[] = []
  const reopen = () => {
    const s = nodeSqliteStore({ path })
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

describeStoreContract('sqlite', openNodeSqliteTestStore)
const failed = await runCollected()
process.exit(failed === 0 ? 0 : 1)
