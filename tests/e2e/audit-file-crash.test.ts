/**
 * kill -9 the server while audited requests pour in: the audit file (AUTOMATON_AUDIT_FILE) ends
 * up with every record of the database once, in chain order per organization, after a restart;
 * `automaton audit verify` finds the chain intact, then the first record edited in the database.
 */
import { Database } from 'bun:sqlite'
import { describe, expect, it } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, runCli, startServer, until } from '../helpers/process.ts'
import { servedPerStore } from '../helpers/served.ts'
import { storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY = 'svcsk_audit_file_crash_bootstrap_key_0123456789'

interface ChainReport {
  organizationId: string
  records: number
  broken: { seq: number; id: string | null } | null
}

/** Edits the database behind the server's back, as someone with database access alone could. */
async function editDatabase(env: Record<string, string>, sql: string, params: unknown[]) {
  if (env.AUTOMATON_DATABASE_URL) return void (await queryDatabase(env, sql, params))
  const db = new Database(join(env.AUTOMATON_DATA_DIR, 'automaton.db'))
  try {
    db.query(sql.replace(/\$(\d+)/g, '?$1')).run(...(params as never[]))
  } finally {
    db.close()
  }
}

const linesOf = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { organizationId: string; seq: number; id: string })
    : []

for (const kind of storeKinds()) {
  describe(`the audit file across kill -9 (${kind})`, () => {
    const dir = tempDir()
    const file = join(dir.path, 'audit.jsonl')
    const served = servedPerStore(kind, KEY, { AUTOMATON_AUDIT_FILE: file, AUTOMATON_HOOK_POLL_MS: '20' })

    it('holds every record once, in order', async () => {
      let n = 0
      let dead = false
      const sender = async () => {
        while (!dead) {
          try {
            await api(served.server.url, 'POST', '/v1/service-accounts', KEY, { name: `sa-${n++}`, permissions: [] })
          } catch (error) {
            if (!dead) throw error
          }
        }
      }
      const senders = Array.from({ length: 4 }, sender)
      await until('records in the file', async () => linesOf(file).length >= 40 || undefined)
      dead = true
      await served.server.stop('SIGKILL')
      await Promise.all(senders)
      served.server = await startServer({ env: served.env })
      await api(served.server.url, 'POST', '/v1/service-accounts', KEY, { name: 'after', permissions: [] })
      const stored = await queryDatabase<{ id: string }>(
        served.env,
        'SELECT id FROM audit_events ORDER BY organization_id, seq',
        [],
      )
      await until('every record in the file', async () => linesOf(file).length >= stored.length || undefined)
      const lines = linesOf(file)
      expect(lines.map((l) => l.id)).toEqual(stored.map((r) => r.id))
      for (let i = 1; i < lines.length; i++) expect(lines[i].seq).toBe(lines[i - 1].seq + 1)

      // The chain verifies across the crash; a record edited in the database breaks it there.
      const verify = async () => {
        const { code, stdout } = await runCli(['audit', 'verify'], served.env)
        return { code, organizations: (JSON.parse(stdout) as { organizations: ChainReport[] }).organizations }
      }
      const intact = await verify()
      expect(intact.code).toBe(0)
      expect(intact.organizations.every((o) => o.broken === null && o.records > 0)).toBe(true)
      const [victim] = await queryDatabase<{ id: string; seq: number; organization_id: string }>(
        served.env,
        'SELECT id, seq, organization_id FROM audit_events ORDER BY seq LIMIT 1 OFFSET 5',
      )
      await editDatabase(served.env, "UPDATE audit_events SET outcome = 'refused' WHERE id = $1", [victim.id])
      const broken = await verify()
      expect(broken.code).toBe(1)
      expect(broken.organizations.find((o) => o.organizationId === victim.organization_id)?.broken).toMatchObject({
        seq: Number(victim.seq),
        id: victim.id,
      })
      dir.remove()
    })
  })
}
