/**
 * AUTOMATON_DATABASE_URL naming a database that does not exist yet: a role that may create
 * databases gets it created on first start; one that may not gets one line naming `createdb`,
 * not a stack trace.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import postgres from 'postgres'
import { failureOf } from '../../adapters/cli/index.ts'
import { runCli } from '../../main.ts'
import { TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const suffix = crypto.randomUUID().replace(/-/g, '').slice(0, 12)

function urlOf(base: string, database: string, user?: string): string {
  const url = new URL(base)
  url.pathname = `/${database}`
  if (user) {
    url.username = user
    url.password = ''
  }
  return url.toString()
}

async function failureOfCommand(argv: string[], env: Record<string, string>): Promise<string> {
  try {
    await runCli(argv, env)
  } catch (error) {
    return failureOf(error, 'test').message
  }
  throw new Error('the command succeeded')
}

const BASE = TEST_DATABASE_URL
if (!BASE) warnSkipped('the missing-database start', 'AUTOMATON_TEST_DATABASE_URL')
else {
  const admin = postgres(BASE, { max: 1, onnotice: () => {} })
  const dir = tempDir()
  const created = `automaton_new_${suffix}`
  const refused = `automaton_refused_${suffix}`
  const role = `automaton_nocreate_${suffix}`
  afterAll(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${created} WITH (FORCE)`)
    await admin.unsafe(`DROP ROLE IF EXISTS ${role}`)
    await admin.end()
    dir.remove()
  })

  describe('a database URL naming a database that does not exist', () => {
    it('creates the database when the role may, and the command answers', async () => {
      const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_DATABASE_URL: urlOf(BASE, created) }
      expect(await runCli(['orgs', 'create', 'acme'], env)).toBe(0)
      const found = await admin`SELECT 1 FROM pg_database WHERE datname = ${created}`
      expect(found.length).toBe(1)
    })

    it('says in one line to run createdb when the role may not create it', async () => {
      await admin.unsafe(`CREATE ROLE ${role} LOGIN NOCREATEDB`)
      const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_DATABASE_URL: urlOf(BASE, refused, role) }
      const message = await failureOfCommand(['orgs', 'list'], env)
      expect(message.trim().split('\n')).toHaveLength(1)
      expect(message).toContain(`createdb`)
      expect(message).toContain(refused)
      expect(message).not.toContain('    at ')
    })
  })
}
