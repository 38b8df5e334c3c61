/**
 * The operator's commands in the audit log: the real CLI changes things (organizations, keys,
 * people, identity providers, the master key), then the API's audit list shows one record per
 * command in each organization it concerns, the actor being the operating-system user, with no
 * secret in it, and `audit verify` finds every chain intact. On SQLite and on Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname, userInfo } from 'node:os'
import { join } from 'node:path'
import { eventually } from '../helpers/eventually.ts'
import { startIdentityProvider, type TestIdentityProvider } from '../helpers/identity-provider.ts'
import { api, runCli, startServer } from '../helpers/process.ts'
import { freshPostgresUrl, storeKinds } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

interface AuditRecord {
  seq: number
  actor: { kind: string; id: string; name: string }
  operation: string
  resource: { type: string; id: string }
  outcome: string
  details: { host?: string; error?: string }
}

const PASSWORD = 'correct horse battery'
const NEW_PASSWORD = 'another long passphrase'
const STEP_MS = 60_000

for (const kind of storeKinds()) {
  describe(`operator commands in the audit log (${kind})`, () => {
    const dir = tempDir()
    let pg: Awaited<ReturnType<typeof freshPostgresUrl>> | null = null
    let provider: TestIdentityProvider
    let env: Record<string, string>
    const secrets: string[] = [PASSWORD, NEW_PASSWORD]

    const cli = async (...args: string[]) => {
      const done = await runCli(args, env)
      if (done.code !== 0) throw new Error(`automaton ${args.join(' ')} exited ${done.code}: ${done.stderr}`)
      return JSON.parse(done.stdout)
    }
    const file = (name: string, text: string) => {
      const path = join(dir.path, name)
      writeFileSync(path, `${text}\n`)
      return path
    }

    beforeAll(async () => {
      pg = kind === 'postgres' ? await freshPostgresUrl() : null
      provider = await startIdentityProvider('http://127.0.0.1:1/v1/auth/oidc/callback')
      secrets.push(provider.clientSecret)
      env = {
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_DATABASE_URL: pg?.url ?? '',
        AUTOMATON_LOG_LEVEL: 'error',
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      }
    })
    afterAll(async () => {
      await provider?.stop()
      await pg?.drop()
      dir.remove()
    })

    it(
      'records each changing command as the operator, in the organizations it concerns, chained and without secrets',
      async () => {
        const acme = await cli('orgs', 'create', `acme-${kind}`)
        const other = await cli('orgs', 'create', `other-${kind}`)
        const minted = await cli('keys', 'create', '--org', acme.id, '--name', 'ops')
        secrets.push(minted.key)
        const ann = await cli(
          'users',
          'create',
          '--email',
          'ann@corp.test',
          '--org',
          acme.id,
          '--password-file',
          file('p1', PASSWORD),
        )
        await cli('users', 'reset-password', '--email', 'ann@corp.test', '--password-file', file('p2', NEW_PASSWORD))
        const link = await cli('users', 'sign-in-link', '--email', 'ann@corp.test')
        secrets.push(new URL(link.url).searchParams.get('token')!)
        await cli('orgs', 'set', acme.id, '--fair-share', '2')
        await cli('credits', 'grant', '--org', acme.id, '--amount', '5')
        const secretFile = file('client-secret', provider.clientSecret)
        await cli(
          'oidc',
          'add',
          'corp',
          '--issuer',
          provider.issuer,
          '--client-id',
          provider.clientId,
          '--client-secret-file',
          secretFile,
        )
        await cli('oidc', 'require-sso', '--org', acme.id)
        await cli('oidc', 'remove', 'corp')
        const rotated = await cli('master-key', 'rotate')
        secrets.push(rotated.masterKey)
        await cli(
          'universe',
          'import',
          file('tickers.csv', 'symbol,name,exchange,type,rank\nACME,Acme Corporation,NYSE,equity,1'),
        )
        // A command that fails once it began to write: ann has a password already.
        const again = await runCli(
          ['users', 'create', '--email', 'ann@corp.test', '--org', acme.id, '--password-file', file('p3', PASSWORD)],
          env,
        )
        expect(again.code).toBe(1)
        // One that fails before writing anything leaves no record.
        expect((await runCli(['oidc', 'remove', 'corp'], env)).code).toBe(1)

        const verified = await runCli(['audit', 'verify'], env)
        expect(verified.code).toBe(0)
        expect(JSON.parse(verified.stdout).intact).toBe(true)

        const siem = join(dir.path, 'audit.jsonl')
        const server = await startServer({
          env: { ...env, AUTOMATON_LOG_LEVEL: 'info', AUTOMATON_AUDIT_FILE: siem, AUTOMATON_HOOK_POLL_MS: '50' },
        })
        try {
          const listed = await api(server.url, 'GET', '/v1/audit-events?limit=100', minted.key)
          expect(listed.status).toBe(200)
          const records = (listed.body.data.items as AuditRecord[]).filter((r) => r.actor.kind === 'operator').reverse()
          const user = userInfo().username
          for (const r of records) {
            expect(r.actor).toEqual({ kind: 'operator', id: user, name: user })
            expect(r.details.host).toBe(hostname())
          }
          expect(records.map((r) => [r.operation, r.resource.type, r.resource.id, r.outcome])).toEqual([
            ['cli.orgs.create', 'organizations', acme.id, 'allowed'],
            ['cli.keys.create', 'apiKeys', minted.id, 'allowed'],
            ['cli.users.create', 'users', ann.id, 'allowed'],
            ['cli.users.reset-password', 'users', ann.id, 'allowed'],
            ['cli.users.sign-in-link', 'users', ann.id, 'allowed'],
            ['cli.orgs.set', 'organizations', acme.id, 'allowed'],
            ['cli.credits.grant', 'aiCredits', expect.stringMatching(/^acr_/), 'allowed'],
            ['cli.oidc.add', 'oidcProviders', 'corp', 'allowed'],
            ['cli.oidc.require-sso', 'organizations', acme.id, 'allowed'],
            ['cli.oidc.remove', 'oidcProviders', 'corp', 'allowed'],
            ['cli.master-key.rotate', 'masterKey', rotated.keyId, 'allowed'],
            ['cli.universe.import', 'universe', '', 'allowed'],
            ['cli.users.create', 'users', ann.id, 'failed'],
          ])
          expect(records.at(-1)!.details.error).toContain('exists')
          const text = JSON.stringify(listed.body)
          for (const secret of secrets) expect(text).not.toContain(secret)

          // The other organization holds what concerned it: its creation and the installation-wide changes.
          const otherKey = await cli('keys', 'create', '--org', other.id, '--name', 'auditor')
          const theirs = await api(server.url, 'GET', '/v1/audit-events?limit=100', otherKey.key)
          expect((theirs.body.data.items as AuditRecord[]).map((r) => r.operation).reverse()).toEqual([
            'cli.orgs.create',
            'cli.oidc.add',
            'cli.oidc.remove',
            'cli.master-key.rotate',
            'cli.universe.import',
            'cli.keys.create',
          ])
          // The API's document names the kind.
          const document = await api(server.url, 'GET', '/v1/openapi.json')
          expect(JSON.stringify(document.body)).toContain(
            '"anyOf":[{"const":"person","type":"string"},{"const":"key","type":"string"},{"const":"operator","type":"string"}]',
          )
          // The SIEM file carries them like any other record.
          const shipped = () =>
            (existsSync(siem) ? readFileSync(siem, 'utf8').split('\n').filter(Boolean) : []).map(
              (line) => JSON.parse(line) as AuditRecord & { organizationId: string },
            )
          await eventually(
            () => shipped().filter((r) => r.organizationId === acme.id).length >= records.length,
            'the operator records in the audit file',
          )
          const inFile = shipped().filter((r) => r.organizationId === acme.id && r.actor.kind === 'operator')
          expect(inFile.map((r) => r.seq)).toEqual(records.map((r) => r.seq))
          const filtered = await api(
            server.url,
            'GET',
            `/v1/audit-events?actorId=${user}&operation=cli.keys.create`,
            minted.key,
          )
          expect((filtered.body.data.items as AuditRecord[]).map((r) => r.resource.id)).toEqual([minted.id])
        } finally {
          await server.stop()
        }
        expect((await runCli(['audit', 'verify'], env)).code).toBe(0)
      },
      STEP_MS * 3,
    )
  })
}
