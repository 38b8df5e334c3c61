/**
 * The store contract on Deno, over node:sqlite: run by store-deno.test.ts as
 * `deno run --import-map tests/contract/deno-import-map.json tests/contract/store-deno.ts`, the
 * map pointing `bun:test` at a small runner (tests/helpers/deno-bun-test.ts). Exits 1 when a
 * test failed.
 */
import { nodeSqliteStore } from '../../adapters/sqlite/node-store.ts'
import { runCollected } from '../helpers/deno-bun-test.ts'
import { openSqliteTestStore } from '../helpers/sqlite-test-store.ts'
import { describeStoreContract } from './store.contract.ts'

describeStoreContract('sqlite', async () => openSqliteTestStore(nodeSqliteStore))
const failed = await runCollected()
process.exit(failed === 0 ? 0 : 1)
