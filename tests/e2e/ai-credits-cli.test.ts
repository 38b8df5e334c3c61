/** `automaton credits grant` from the command line, seen by preflight and the ledger of a running server. */
import { describe, expect, it } from 'bun:test'
import { api, runCli, startServer } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

describe('credits grant CLI', () => {
  it('grants to an organization by name; preflight turns true; bad amounts are refused with a usage error', async () => {
    const data = tempDir().path
    const env = { AUTOMATON_DATA_DIR: data, AUTOMATON_LOG_LEVEL: 'error' }
    const org = await runCli(['orgs', 'create', 'acme-ai'], env)
    expect(org.code).toBe(0)
    const orgId = JSON.parse(org.stdout).id as string
    const key = JSON.parse((await runCli(['keys', 'create', '--org', 'acme-ai', '--name', 'k'], env)).stdout)
      .key as string
    const refused = await runCli(['credits', 'grant', '--org', 'acme-ai', '--amount', 'lots'], env)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('--amount')
    const granted = await runCli(['credits', 'grant', '--org', 'acme-ai', '--amount', '25'], env)
    expect(granted.code).toBe(0)
    expect(JSON.parse(granted.stdout)).toEqual({ organizationId: orgId, granted: 25, balance: 25 })
    const server = await startServer({ env: { AUTOMATON_DATA_DIR: data } })
    try {
      expect((await api(server.url, 'GET', '/v1/ai/workflow/chat/preflight', key)).body).toEqual({ allowed: true })
      const credits = await api(server.url, 'GET', '/v1/ai/credits', key)
      expect(credits.body.data.balance).toBe(25)
    } finally {
      await server.stop()
    }
  })
})
