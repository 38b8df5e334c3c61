/**
 * `automaton backup create` while the service is under load, and `backup restore` into a fresh
 * data dir: every workflow, every connector secret readable, and every run acknowledged before
 * the backup began are there. Real server processes and the real CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eventually } from '../helpers/eventually.ts'
import { api, BUN, ROOT, runCli, type ServerProcess, startServer } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY = 'svcsk_backup_test_bootstrap_key_0123456789abcdef'
const PASSPHRASE = 'a long passphrase for the backup'
const WORKFLOWS = 6
const CONNECTORS = 4

describe('backup and restore of the embedded store', () => {
  const dir = tempDir()
  const data = join(dir.path, 'data')
  const backupFile = join(dir.path, 'automaton.backup')
  const passphraseFile = join(dir.path, 'passphrase')
  let server: ServerProcess
  let restored: ServerProcess | undefined

  beforeAll(async () => {
    writeFileSync(passphraseFile, `${PASSPHRASE}\n`)
    server = await startServer({ env: { AUTOMATON_DATA_DIR: data, AUTOMATON_BOOTSTRAP_KEY: KEY } })
  })
  afterAll(async () => {
    await server?.stop('SIGTERM')
    await restored?.stop('SIGTERM')
    dir.remove()
  })

  it('restores a backup taken during load with every workflow, connector secret and acknowledged run', async () => {
    const workflows: Array<{ id: string; triggerSecret: string }> = []
    for (let i = 0; i < WORKFLOWS; i++) {
      const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
        name: `flow ${i}`,
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['a'] },
            a: { type: 'log', payload: { message: 'n {{$trigger.body.n}}' } },
          },
        },
      })
      workflows.push((await api(server.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)).body.data)
    }
    const connectors: Array<{ id: string; token: string }> = []
    for (let i = 0; i < CONNECTORS; i++) {
      const token = `xoxb-backup-${i}-${crypto.randomUUID()}`
      const r = await api(server.url, 'POST', '/v1/connectors', KEY, {
        type: 'chatapp',
        name: `team ${i}`,
        data: { teamId: `TB${i}`, botToken: token },
      })
      expect(r.status).toBe(200)
      connectors.push({ id: r.body.data.id, token })
    }

    // Load: webhook runs keep arriving before, during and after the backup.
    const acknowledged: Array<{ runId: string; at: number }> = []
    let loading = true
    let n = 0
    const client = async () => {
      while (loading && n < 20_000) {
        const w = workflows[n % WORKFLOWS]
        const response = await fetch(`${server.url}/v1/webhooks/${w.triggerSecret}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n: n++ }),
        })
        expect(response.status).toBe(200)
        acknowledged.push({
          runId: ((await response.json()) as { data: { runIds: string[] } }).data.runIds[0],
          at: performance.now(),
        })
      }
    }
    const clients = Array.from({ length: 8 }, client)
    await eventually(() => acknowledged.length >= 300, 'three hundred runs acknowledged', 60_000)

    const startedAt = performance.now()
    const backup = await runCli(['backup', 'create', backupFile, '--passphrase-file', passphraseFile], {
      AUTOMATON_DATA_DIR: data,
      AUTOMATON_LOG_LEVEL: 'error',
    })
    const during = acknowledged.filter((a) => a.at > startedAt).length
    const beforeBackup = acknowledged.filter((a) => a.at < startedAt).map((a) => a.runId)
    loading = false
    await Promise.all(clients)
    expect(backup.stderr).toBe('')
    expect(backup.code).toBe(0)
    expect(JSON.parse(backup.stdout)).toMatchObject({ file: backupFile })
    expect(during).toBeGreaterThan(0)
    expect(readFileSync(backupFile).subarray(0, 18).toString()).toBe('AUTOMATON-BACKUP/1')
    expect(readFileSync(backupFile).includes(Buffer.from(connectors[0].token))).toBe(false)

    // Refusals: a data dir in use, a wrong passphrase (from standard input).
    const refused = await runCli(
      ['backup', 'restore', backupFile, '--data-dir', data, '--passphrase-file', passphraseFile],
      {},
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('is not empty')
    const wrong = Bun.spawn(
      [BUN, join(ROOT, 'main.ts'), 'backup', 'restore', backupFile, '--data-dir', join(dir.path, 'wrong')],
      { cwd: ROOT, stdin: 'pipe', stderr: 'pipe', stdout: 'pipe' },
    )
    wrong.stdin.write('not the passphrase\n')
    await wrong.stdin.end()
    expect(await wrong.exited).toBe(1)
    expect(await new Response(wrong.stderr).text()).toContain('wrong passphrase')

    // The passphrase from standard input, into an empty directory that exists.
    const target = join(dir.path, 'restored')
    mkdirSync(target)
    const restore = Bun.spawn([BUN, join(ROOT, 'main.ts'), 'backup', 'restore', backupFile, '--data-dir', target], {
      cwd: ROOT,
      stdin: 'pipe',
      stderr: 'pipe',
      stdout: 'pipe',
    })
    restore.stdin.write(`${PASSPHRASE}\n`)
    await restore.stdin.end()
    expect(await restore.exited).toBe(0)

    restored = await startServer({ env: { AUTOMATON_DATA_DIR: target, AUTOMATON_BOOTSTRAP_KEY: KEY } })
    const listed = await api(restored.url, 'GET', '/v1/workflows?limit=100', KEY)
    expect(listed.body.data.items.map((w: { id: string }) => w.id).sort()).toEqual(workflows.map((w) => w.id).sort())
    for (const c of connectors) {
      const r = await api(restored.url, 'GET', `/v1/connectors/${c.id}`, KEY)
      expect(r.status).toBe(200)
      expect(r.body.data.maskedData.botToken).toBe(`••••${c.token.slice(-4)}`)
    }
    for (const runId of beforeBackup)
      expect((await api(restored.url, 'GET', `/v1/runs/${runId}?summary=true`, KEY)).status).toBe(200)
  }, 120_000)
})
