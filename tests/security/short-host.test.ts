/** Issue finding 4: a Host header of one to three characters still reaches every route. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startServer, type ServerProcess } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

describe('short Host headers', () => {
  const dir = tempDir()
  let server: ServerProcess
  beforeAll(async () => {
    server = await startServer({ env: { AUTOMATON_DATA_DIR: dir.path } })
  })
  afterAll(async () => {
    await server?.stop()
    dir.remove()
  })

  it('routes requests whatever the length of the Host', async () => {
    for (const host of ['a', 'ab', 'api', 'api:80', `127.0.0.1:${server.port}`]) {
      const health = await fetch(`${server.url}/healthz`, { headers: { host } })
      expect({ host, status: health.status }).toEqual({ host, status: 200 })
      const unauthorized = await fetch(`${server.url}/v1/workflows?limit=5`, { headers: { host } })
      expect({ host, status: unauthorized.status }).toEqual({ host, status: 401 })
    }
  })
})
