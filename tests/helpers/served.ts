/**
 * A real server process of a describe block's own, on a fresh data directory and, on Postgres, a
 * fresh database: started before its tests, killed and cleaned up after them.
 */
import { afterAll, beforeAll } from 'bun:test'
import { api, type ServerProcess, startServer } from './process.ts'
import { freshPostgresUrl } from './services.ts'
import { tempDir } from './tmp.ts'

export interface Served {
  /** The process; a test that restarts it assigns the new one, which is then the one killed after. */
  server: ServerProcess
  /** Its environment, for restarting it and for reading its database (queryDatabase). */
  env: Record<string, string>
}

export function servedPerStore(
  kind: 'sqlite' | 'postgres',
  bootstrapKey: string,
  extra: Record<string, string> = {},
): Served {
  const dir = tempDir()
  let drop: (() => Promise<void>) | undefined
  const served = { env: {} } as Served
  beforeAll(async () => {
    const pg = kind === 'postgres' ? await freshPostgresUrl() : null
    drop = pg?.drop
    served.env = {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_DATABASE_URL: pg?.url ?? '',
      AUTOMATON_BOOTSTRAP_KEY: bootstrapKey,
      ...extra,
    }
    served.server = await startServer({ env: served.env })
  })
  afterAll(async () => {
    await served.server?.stop('SIGKILL')
    await drop?.()
    dir.remove()
  })
  return served
}

/** Creates a workflow of these nodes (trigger `root`) and publishes it; answers the live workflow (`id`, `triggerSecret`, …). */
export async function publishWorkflow(base: string, key: string, nodes: Record<string, unknown>) {
  const created = await api(base, 'POST', '/v1/workflows', key, { definition: { triggerNodeIds: ['root'], nodes } })
  if (created.status !== 200) throw new Error(`could not create the workflow: ${JSON.stringify(created.body)}`)
  return (await api(base, 'POST', `/v1/workflows/${created.body.data.id}/publish`, key)).body.data as {
    id: string
    triggerSecret: string
  }
}
