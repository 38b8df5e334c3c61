/**
 * `automaton master-key rotate`: every sealed value (SEALED_COLUMNS) moves to a new key; every
 * connector keeps working throughout and afterwards, and the old key opens nothing. The CLI
 * runs as its own process while the service is up, as an operator would run it.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createSecretBox, decodeMasterKey, generateMasterKey } from '../../core/security/secret-box.ts'
import { SEALED_COLUMNS } from '../../core/store/sealed-columns.ts'
import { agentStore } from '../../core/store/agents.ts'
import { oidcAuthorizations, oidcProviders, oidcSessions } from '../../core/store/oidc.ts'
import { runCli } from '../helpers/process.ts'
import { TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

const PUBLIC_URL = 'https://93.184.215.14/hooks/automaton'

/** One sealed value in every sealed column, and connectors whose tokens end in known digits. */
async function fillSecrets(t: TestSystem, label: string): Promise<Array<{ id: string; token: string }>> {
  const made = []
  for (let i = 0; i < 3; i++) {
    const token = `xoxb-${label}-${i}-${crypto.randomUUID()}`
    const r = await t.call('POST', '/v1/connectors', {
      body: { type: 'chatapp', name: `${label} ${i}`, data: { teamId: `T${label}${i}`, botToken: token } },
    })
    expect(r.status).toBe(200)
    made.push({ id: r.body.data.id, token })
  }
  const hook = await t.call('POST', '/v1/execution-webhooks', { body: { name: `${label} hook`, url: PUBLIC_URL } })
  expect(hook.status).toBe(200)
  expect((await t.call('POST', `/v1/execution-webhooks/${hook.body.data.endpoint.id}/regenerate-secret`)).status).toBe(
    200,
  )
  expect((await t.call('GET', `/v1/organizations/${t.orgId}/webhook-secret`)).status).toBe(200)
  // A fork's sensitive prop values are sealed in its workflow.
  const template = await t.call('POST', '/v1/templates', {
    body: {
      name: `${label} template`,
      templateProps: [{ key: 'token', name: 'Token', type: 'string', sensitive: true }],
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['say'] },
          say: { type: 'log', payload: { message: '{{$props.token}}' } },
        },
      },
    },
  })
  expect(template.status).toBe(200)
  const fork = await t.call('POST', `/v1/templates/${template.body.data.id}/fork`, {
    body: { propValues: { token: `prop-${label}-${crypto.randomUUID()}` } },
  })
  expect(fork.status).toBe(200)
  // A wallet's key is sealed too, and an agent card's details.
  expect((await t.call('POST', '/v1/wallets', { body: { name: `${label} wallet` } })).status).toBe(200)
  expect(
    (
      await t.call('POST', '/v1/agent-cards', {
        body: {
          name: `${label} card`,
          number: '4242424242424242',
          expMonth: 12,
          expYear: 2031,
          cvc: '123',
          holderName: 'Ops',
        },
      })
    ).status,
  ).toBe(200)
  // An agent run's worker session (its key sealed), as POST /v1/agent-runs stores it.
  const sealed = await t.system.secretBox.seal(`svcsk_${label}_${crypto.randomUUID()}`)
  await t.system.store.write((tx) =>
    agentStore.insertRun(tx, {
      run_id: `run_${label}_${crypto.randomUUID().slice(0, 8)}`,
      organization_id: t.orgId,
      agent_type: 'researcher',
      conversation_id: 'conv_x',
      user_id: null,
      key_id: 'key_x',
      sealed_key: sealed,
      parent_span: null,
      parent_project: null,
      created_at: Date.now(),
      ended_at: null,
    }),
  )
  await fillSsoSecrets(t, label)
  await fillPluginSecrets(t, label, made[0].id)
  return made
}

/** A trigger subscription's store, an OAuth2 connector's tokens and an authorization under way, as the host seals them. */
async function fillPluginSecrets(t: TestSystem, label: string, connectorId: string): Promise<void> {
  const box = t.system.secretBox
  const unique = `${label}-${crypto.randomUUID().slice(0, 8)}`
  const at = Date.now()
  const store = await box.seal(JSON.stringify({ secret: `sub-${unique}` }))
  const access = await box.seal(`access-${unique}`)
  const refresh = await box.seal(`refresh-${unique}`)
  const verifier = await box.seal(`verifier-${unique}`)
  await t.system.store.write(async (tx) => {
    await tx.run(
      `INSERT INTO trigger_subscriptions (id, organization_id, workflow_id, node_id, trigger_type, config, state, sealed_store, attempts, created_at, updated_at)
       VALUES ($1, $2, 'wf_x', 'root', 'chatapp-mentions', '{}', 'enabled', $3, 0, $4, $4)`,
      [`sub_${unique}`, t.orgId, store, at],
    )
    await tx.run(
      `INSERT INTO connector_oauth2_tokens (connector_id, organization_id, state, sealed_access_token, sealed_refresh_token, updated_at)
       VALUES ($1, $2, 'connected', $3, $4, $5) ON CONFLICT (connector_id) DO NOTHING`,
      [connectorId, t.orgId, access, refresh, at],
    )
    await tx.run(
      `INSERT INTO oauth2_authorizations (state_hash, connector_id, organization_id, sealed_verifier, redirect_uri, created_at)
       VALUES ($1, $2, $3, $4, 'https://example.org/cb', $5)`,
      [`hash-${unique}`, connectorId, t.orgId, verifier, at],
    )
  })
}

/** Single sign-on's sealed values: a provider the CLI added, a sign-in under way, a session's refresh token. */
async function fillSsoSecrets(t: TestSystem, label: string): Promise<void> {
  const box = t.system.secretBox
  const unique = `${label}-${crypto.randomUUID().slice(0, 8)}`
  const person = await t.system.people.createUser({
    email: `sso-${unique}@example.com`,
    name: 'Sso',
    password: 'a long enough password',
    organizationId: t.orgId,
    role: 'viewer',
  })
  const [secret, verifier, refresh] = await Promise.all([box.seal('secret'), box.seal('{}'), box.seal('refresh')])
  await t.system.store.write(async (tx) => {
    await oidcProviders.insert(tx, {
      name: `corp-${unique}`,
      display_name: 'Corp',
      issuer: 'https://login.example.com',
      client_id: 'automaton',
      sealed_client_secret: secret,
      groups_claim: 'groups',
      group_roles: '',
      scopes: '',
      jit: 1,
      created_at: Date.now(),
    })
    await oidcAuthorizations.insert(tx, {
      state_hash: `state-${unique}`,
      provider: `corp-${unique}`,
      sealed_verifier: verifier,
      return_to: '/',
      subject: null,
      user_id: null,
      created_at: Date.now(),
    })
  })
  await t.system.people.signInAs(person.id, { ip: null, userAgent: null }, async (tx, sessionId) => {
    await oidcSessions.insert(tx, {
      session_id: sessionId,
      provider: `corp-${unique}`,
      subject: unique,
      sealed_refresh_token: refresh,
      checked_at: Date.now(),
    })
  })
}

/** Every connector opens with its full token, through the API (masked) and as a node gets it. */
async function expectConnectorsWork(t: TestSystem, connectors: Array<{ id: string; token: string }>) {
  for (const c of connectors) {
    const r = await t.call('GET', `/v1/connectors/${c.id}`)
    expect(r.status).toBe(200)
    expect(r.body.data.maskedData.botToken).toBe(`••••${c.token.slice(-4)}`)
    expect((await t.system.connectors.resolve(t.orgId, { id: c.id }, 'chatapp')).data.botToken).toBe(c.token)
  }
  expect((await t.call('GET', `/v1/organizations/${t.orgId}/webhook-secret`)).body.data.webhookSecret).toMatch(
    /^whsec_/,
  )
}

/** Every stored sealed value, by column; each column must hold at least one. */
async function sealedValues(t: TestSystem): Promise<string[]> {
  const out: string[] = []
  for (const c of SEALED_COLUMNS) {
    const rows = await t.system.store.all<{ v: string }>(
      `SELECT ${c.column} AS v FROM ${c.table} WHERE ${c.column} IS NOT NULL${c.where ? ` AND ${c.where}` : ''}`,
    )
    expect(rows.length).toBeGreaterThan(0)
    out.push(...rows.map((r) => r.v))
  }
  return out
}

async function expectOnlyKeyOpens(values: string[], only: string, not: string) {
  const good = await createSecretBox(decodeMasterKey(only))
  const old = await createSecretBox(decodeMasterKey(not))
  for (const v of values) {
    expect(typeof (await good.open(v))).toBe('string')
    await expect(old.open(v)).rejects.toThrow()
  }
}

describe('master-key rotation, key in the data dir (SQLite, one transaction)', () => {
  let t: TestSystem
  afterAll(() => t?.close())

  it('re-seals every secret under a new key while the service runs; the old key opens nothing', async () => {
    t = await openTestSystem('sqlite')
    const dataDir = t.system.config.dataDir
    const oldKey = readFileSync(join(dataDir, 'master.key'), 'utf8').trim()
    const connectors = await fillSecrets(t, 'a')
    const before = await sealedValues(t)

    const rotated = await runCli(['master-key', 'rotate'], {
      AUTOMATON_DATA_DIR: dataDir,
      AUTOMATON_LOG_LEVEL: 'error',
    })
    expect(rotated.code).toBe(0)
    const out = JSON.parse(rotated.stdout)
    expect(out.resealed).toBe(before.length)
    expect(out.masterKey).not.toBe(oldKey)
    expect(readFileSync(join(dataDir, 'master.key'), 'utf8').trim()).toBe(out.masterKey)
    expect(existsSync(join(dataDir, 'master.key.next'))).toBe(false)

    // The running service, which started with the old key, reads and seals with the new one.
    await expectConnectorsWork(t, connectors)
    connectors.push(...(await fillSecrets(t, 'b')))
    await expectOnlyKeyOpens(await sealedValues(t), out.masterKey, oldKey)

    // After a restart too.
    const restarted = await t.openSibling()
    await expectConnectorsWork(restarted, connectors)
    await restarted.stop()
  })
})

if (!TEST_DATABASE_URL) warnSkipped('master-key rotation on Postgres', 'AUTOMATON_TEST_DATABASE_URL')

describe.skipIf(!TEST_DATABASE_URL)('master-key rotation, key in the environment (Postgres, batches)', () => {
  const oldKey = generateMasterKey()
  const newKey = generateMasterKey()
  let t: TestSystem
  afterAll(() => t?.close())

  it('moves every secret to the new key with both keys readable during the change; the old key opens nothing', async () => {
    t = await openTestSystem('postgres', { AUTOMATON_MASTER_KEY: oldKey })
    const connectors = await fillSecrets(t, 'a')
    const env = {
      AUTOMATON_DATA_DIR: t.system.config.dataDir,
      AUTOMATON_DATABASE_URL: t.system.config.databaseUrl!,
      AUTOMATON_LOG_LEVEL: 'error',
    }

    // Without the previous key the command explains the steps instead of stranding the processes.
    const refused = await runCli(['master-key', 'rotate'], { ...env, AUTOMATON_MASTER_KEY: newKey })
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('AUTOMATON_MASTER_KEY_PREVIOUS')

    // A rolling restart: a process with both keys beside one with the old key only; what the new
    // one seals (still with the old key) the old one reads.
    const both = await t.openSibling({ AUTOMATON_MASTER_KEY: newKey, AUTOMATON_MASTER_KEY_PREVIOUS: oldKey })
    connectors.push(...(await fillSecrets(both, 'b')))
    await expectConnectorsWork(t, connectors)
    await t.stop()

    // Connectors are read throughout the rotation, which runs with a small batch in its own process.
    let reading = true
    let reads = 0
    const reader = (async () => {
      while (reading) {
        await expectConnectorsWork(both, connectors)
        reads++
      }
    })()
    const rotated = await runCli(['master-key', 'rotate'], {
      ...env,
      AUTOMATON_MASTER_KEY: newKey,
      AUTOMATON_MASTER_KEY_PREVIOUS: oldKey,
    })
    reading = false
    await reader
    expect(rotated.code).toBe(0)
    expect(reads).toBeGreaterThan(0)
    expect(JSON.parse(rotated.stdout)).toMatchObject({ masterKey: newKey, resealed: (await sealedValues(both)).length })
    // Sealed after the switch: the new key.
    connectors.push(...(await fillSecrets(both, 'c')))
    await both.stop()

    const after = await t.openSibling({ AUTOMATON_MASTER_KEY: newKey })
    await expectConnectorsWork(after, connectors)
    await expectOnlyKeyOpens(await sealedValues(after), newKey, oldKey)
    await after.stop()
    await expect(t.openSibling({ AUTOMATON_MASTER_KEY: oldKey })).rejects.toThrow(/seals its secrets with master key/)
  }, 60_000)
})
