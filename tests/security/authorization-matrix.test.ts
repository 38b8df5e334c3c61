/**
 * The authorization matrix, generated: from the permission table (core/domain/permissions.ts),
 * the OpenAPI document and the services' operation tables. For every operation and each
 * permission it needs, a caller holding every permission but that one is refused with 403 naming
 * it — over HTTP, and when the service is called directly, as the builder chat's tools and any
 * other path do. New operations are covered by construction. The builder chat's tools are tried
 * as a model would use them: refused, told which permission is missing, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Permission, PERMISSIONS, ROLE_PERMISSIONS } from '../../core/domain/permissions.ts'
import { isAppError } from '../../core/errors.ts'
import type { Principal } from '../../core/services/auth.ts'
import { operationsOf } from '../../core/services/operations.ts'
import {
  type ScriptedOpenAi,
  scriptedModelEnv,
  startScriptedOpenAi,
  textTurn,
  toolTurn,
} from '../helpers/openai-server.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

interface OpenApiOperation {
  'x-permissions'?: Permission[]
}

const MISSING = (permission: string) => [{ message: 'missing permission', permission }]

/** Services a caller reaches; each must check its operations itself. */
const GUARDED_SERVICES = [
  'workflows',
  'runs',
  'templates',
  'apps',
  'connectors',
  'connectorOAuth2',
  'catalogOptions',
  'apiKeys',
  'serviceAccounts',
  'members',
  'people',
  'wallets',
  'x402Endpoints',
  'executionHooks',
  'webhookEvents',
  'webhookSecrets',
  'organizationSettings',
  'schedules',
  'agents',
  'cards',
  'builderChat',
  'contractChat',
  'nodeMigrations',
] as const

const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter((f) => f.includes('event:'))
    .map((frame) => ({
      event: /^event: (.*)$/m.exec(frame)![1],
      data: JSON.parse(
        frame
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n'),
      ),
    }))

for (const kind of storeKinds()) {
  describe(`authorization matrix (${kind})`, () => {
    let t: TestSystem
    let model: ScriptedOpenAi
    /** A key holding every permission but the one named. */
    const allBut = new Map<Permission, string>()

    const keyWith = async (permissions: readonly Permission[], name: string) => {
      const account = await t.call('POST', '/v1/service-accounts', { body: { name, permissions } })
      expect(account.status).toBe(200)
      const key = await t.call('POST', '/v1/api-keys', { body: { name, serviceAccountId: account.body.data.id } })
      expect(key.status).toBe(200)
      return key.body.data.key as string
    }

    beforeAll(async () => {
      model = startScriptedOpenAi()
      t = await openTestSystem(kind, { ...scriptedModelEnv(model, 1000), AUTOMATON_OPERATOR_ORG: 'acme' })
      for (const permission of PERMISSIONS)
        allBut.set(
          permission,
          await keyWith(
            PERMISSIONS.filter((p) => p !== permission),
            `all-but-${permission}`,
          ),
        )
    })
    afterAll(async () => {
      await t?.close()
      await model?.stop()
    })

    it('owners hold all but template:moderate and card:disclose, which the operator organization and explicit grants give', async () => {
      expect(ROLE_PERMISSIONS.owner).not.toContain('card:disclose')
      expect(ROLE_PERMISSIONS.owner).not.toContain('template:moderate')
      for (const p of ['agent:run', 'x402:read', 'x402:write', 'universe:read'] as const)
        expect(ROLE_PERMISSIONS.owner).toContain(p)
      // The test organization (acme) is the operator organization: its owner moderates; another's owner does not.
      const me = (await t.call('GET', '/v1/me')).body.data
      expect(me.permissions).toContain('template:moderate')
      expect(me.permissions).not.toContain('card:disclose')
      const other = await t.newOrganization(`matrix-other-${kind}`)
      const theirs = (await t.call('GET', '/v1/me', { key: other.key })).body.data
      expect(theirs.permissions).not.toContain('template:moderate')
      // An owner hands out card:disclose without holding it.
      expect(await keyWith(['card:disclose', 'run:read'], 'discloser')).toMatch(/^svcsk_/)
    })

    it('every operation of the OpenAPI document refuses a caller lacking any one permission it needs (HTTP)', async () => {
      const doc = (await t.call('GET', '/v1/openapi.json', { key: null })).body
      const cases: Array<{ method: string; path: string; permission: Permission }> = []
      for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, OpenApiOperation>>)) {
        for (const [method, op] of Object.entries(methods)) {
          for (const permission of op['x-permissions'] ?? [])
            cases.push({ method: method.toUpperCase(), path, permission })
        }
      }
      expect(cases.length).toBeGreaterThan(120)
      const wrong: unknown[] = []
      for (const c of cases) {
        const path = c.path.replace(/\{[^}]+\}/g, 'x_matrix')
        const r = await t.call(c.method, path, {
          key: allBut.get(c.permission)!,
          body: ['GET', 'DELETE'].includes(c.method) ? undefined : {},
        })
        if (r.status !== 403 || JSON.stringify(r.body.details) !== JSON.stringify(MISSING(c.permission)))
          wrong.push({ ...c, status: r.status, body: r.body })
      }
      expect(wrong).toEqual([])
    })

    it('every guarded service operation refuses a caller lacking any one permission it needs, before it does anything', async () => {
      const services = t.system as unknown as Record<string, unknown>
      const tables = GUARDED_SERVICES.map((name) => ({ name, operations: operationsOf(services[name]) }))
      expect(tables.filter((s) => !s.operations).map((s) => s.name)).toEqual([])
      let checked = 0
      const wrong: unknown[] = []
      for (const { name, operations } of tables) {
        for (const [operation, needs] of Object.entries(operations!.table)) {
          for (const permission of needs ?? []) {
            const caller: Principal = {
              kind: 'key',
              organizationId: t.orgId,
              keyId: 'key_matrix',
              sessionId: null,
              serviceAccountId: 'sa_matrix',
              userId: null,
              role: null,
              scope: 'read-write',
              permissions: new Set(PERMISSIONS.filter((p) => p !== permission)),
            }
            const fn = (services[name] as Record<string, (...args: unknown[]) => unknown>)[operation]
            // Arguments that would fail any check after the permission's: only the guard may answer.
            const outcome = await Promise.resolve()
              .then(() => fn(caller, 'x_matrix', {}, {}, new Headers()))
              .then(
                () => 'done',
                (e: unknown) => e,
              )
            checked++
            if (
              !isAppError(outcome) ||
              outcome.status !== 403 ||
              JSON.stringify(outcome.details) !== JSON.stringify(MISSING(permission))
            ) {
              wrong.push({
                service: name,
                operation,
                permission,
                outcome: isAppError(outcome) ? { status: outcome.status, message: outcome.message } : String(outcome),
              })
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(100)
      expect(wrong).toEqual([])
    })

    it("the builder chat's tools act as the caller: a chat-only key reads, changes and runs nothing", async () => {
      const GOOD = {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['say'] },
          say: { type: 'log', payload: { message: 'changed by chat' } },
        },
      }
      const { id: workflowId } = await createLive(t, {
        name: 'Mine',
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'mine' } } },
        },
      })
      const before = (await t.call('GET', `/v1/workflows/${workflowId}`)).body.data
      const runsBefore = (await t.call('GET', `/v1/workflows/${workflowId}/runs`)).body.data.items.length
      const chatOnly = await keyWith(['ai:chat'], 'chat-only')

      // Naming a workflow it may not read: refused before the model hears of it.
      const asked = model.requests.length
      const read = await t.call('POST', '/v1/ai/workflow/chat', {
        key: chatOnly,
        body: { message: 'show me', workflowId },
      })
      expect({ status: read.status, details: read.body.details }).toEqual({
        status: 403,
        details: MISSING('workflow:read'),
      })
      expect(model.requests.length).toBe(asked)

      // Without a workflow: the proposal would create one, and the caller may not.
      model.queue(toolTurn('propose_workflow', { name: 'Sneaky', definition: GOOD }), textTurn('Could not.'))
      const created = await t.call('POST', '/v1/ai/workflow/chat', { key: chatOnly, body: { message: 'make one' } })
      expect(created.status).toBe(200)
      expect(eventsOf(created.body).map((e) => e.event)).not.toContain('workflow.proposed')
      const told = (model.requests.at(-1)!.messages as Array<{ role: string; content: string }>).find(
        (m) => m.role === 'tool',
      )!
      expect(JSON.parse(told.content).error).toContain('workflow:create')
      expect((await t.call('GET', '/v1/workflows?search=Sneaky')).body.data.items).toEqual([])

      // Reading is allowed, changing and running are not: the draft and the runs stay as they were.
      const reader = await keyWith(['ai:chat', 'workflow:read'], 'chat-reader')
      model.queue(
        toolTurn('propose_workflow', { name: 'Changed', definition: GOOD }),
        toolTurn('test_run', { payload: {} }),
        textTurn('Could not.'),
      )
      const changed = await t.call('POST', '/v1/ai/workflow/chat', {
        key: reader,
        body: { message: 'change it and run it', workflowId },
      })
      expect(changed.status).toBe(200)
      expect(eventsOf(changed.body).map((e) => e.event)).not.toContain('run.linked')
      const answers = model.requests
        .slice(-2)
        .map(
          (r) =>
            (r.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').at(-1)!.content,
        )
      expect(JSON.parse(answers[0]).error).toContain('workflow:update')
      expect(JSON.parse(answers[1]).error).toContain('workflow:execute')
      const after = (await t.call('GET', `/v1/workflows/${workflowId}`)).body.data
      expect({ version: after.version, definition: after.definition, updatedBy: after.updatedBy }).toEqual({
        version: before.version,
        definition: before.definition,
        updatedBy: before.updatedBy,
      })
      expect((await t.call('GET', `/v1/workflows/${workflowId}/runs`)).body.data.items.length).toBe(runsBefore)
    })
  })
}
