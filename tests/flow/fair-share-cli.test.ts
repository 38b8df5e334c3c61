/** `automaton orgs set --fair-share`: an operator's weight for an organization, stored; bad input is a usage error. */
import { describe, expect, it } from 'bun:test'
import { runCli } from '../helpers/process.ts'
import { queryDatabase } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'

describe('orgs set --fair-share', () => {
  it('stores the weight by id or name, and refuses what is not a whole number from 1 to 1000', async () => {
    const data = tempDir().path
    const env = { AUTOMATON_DATA_DIR: data, AUTOMATON_LOG_LEVEL: 'error' }
    const org = JSON.parse((await runCli(['orgs', 'create', 'acme-fair'], env)).stdout) as { id: string }
    await runCli(['orgs', 'create', 'other'], env)
    const set = await runCli(['orgs', 'set', 'acme-fair', '--fair-share', '3'], env)
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toEqual({ id: org.id, name: 'acme-fair', fairShare: 3 })
    for (const bad of ['0', '1001', '2.5', 'many']) {
      const refused = await runCli(['orgs', 'set', org.id, '--fair-share', bad], env)
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('--fair-share')
    }
    expect((await runCli(['orgs', 'set', 'nobody', '--fair-share', '2'], env)).code).not.toBe(0)
    const stored = await queryDatabase<{ name: string; fair_share: number }>(
      env,
      'SELECT name, fair_share FROM organizations ORDER BY name',
    )
    expect(stored).toEqual([
      { name: 'acme-fair', fair_share: 3 },
      { name: 'other', fair_share: 1 },
    ])
  })
})
