/**
 * `automaton backup create` on Deno: the embedded store served by Deno (node:sqlite) is copied
 * while the server runs, and the backup restores and serves on Bun, the same file format. Real
 * server processes and the real CLI on both runtimes.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, DENO, ROOT, runCli, type ServerProcess, startServer } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

const DENO_CMD = [DENO, 'run', '--allow-all', '--no-check', '--node-modules-dir=manual', join(ROOT, 'main.ts')]
const KEY = 'svcsk_backup_deno_bootstrap_key_0123456789abcdef'

describe('backup create on Deno, with the embedded store', () => {
  const dir = tempDir()
  const servers: ServerProcess[] = []
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGTERM')
    dir.remove()
  })

  it('backs up the live store served by Deno, and the backup restores and serves on Bun', async () => {
    const data = join(dir.path, 'data')
    const passphraseFile = join(dir.path, 'passphrase')
    writeFileSync(passphraseFile, 'a long passphrase for the backup\n')
    const env = { AUTOMATON_DATA_DIR: data, AUTOMATON_BOOTSTRAP_KEY: KEY }
    const deno = await startServer({ env, cmd: [...DENO_CMD, 'serve'], timeoutMs: 90_000 })
    servers.push(deno)
    expect(deno.logs()).toContain('"runtime":"deno"')
    const workflow = await api(deno.url, 'POST', '/v1/workflows', KEY, {
      name: 'kept',
      definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual', children: [] } } },
    })
    expect(workflow.status).toBe(200)
    const token = `xoxb-deno-${crypto.randomUUID()}`
    const connector = await api(deno.url, 'POST', '/v1/connectors', KEY, {
      type: 'chatapp',
      name: 'team',
      data: { teamId: 'TD1', botToken: token },
    })
    expect(connector.status).toBe(200)

    const backupFile = join(dir.path, 'automaton.backup')
    const backup = await runCli(
      ['backup', 'create', backupFile, '--passphrase-file', passphraseFile],
      { AUTOMATON_DATA_DIR: data, AUTOMATON_LOG_LEVEL: 'error' },
      DENO_CMD,
    )
    expect(backup.stderr).toBe('')
    expect(backup.code).toBe(0)
    expect(JSON.parse(backup.stdout)).toMatchObject({ file: backupFile })

    const target = join(dir.path, 'restored')
    const restore = await runCli(
      ['backup', 'restore', backupFile, '--data-dir', target, '--passphrase-file', passphraseFile],
      {},
    )
    expect(restore.code).toBe(0)
    const bun = await startServer({ env: { AUTOMATON_DATA_DIR: target, AUTOMATON_BOOTSTRAP_KEY: KEY } })
    servers.push(bun)
    const kept = await api(bun.url, 'GET', `/v1/workflows/${workflow.body.data.id}`, KEY)
    expect(kept.body.data).toMatchObject({ name: 'kept' })
    const secret = await api(bun.url, 'GET', `/v1/connectors/${connector.body.data.id}`, KEY)
    expect(secret.body.data.maskedData.botToken).toBe(`••••${token.slice(-4)}`)
  }, 180_000)
})
