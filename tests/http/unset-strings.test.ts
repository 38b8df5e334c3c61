/**
 * One rule for unset fields (the specification's): a field typed as a string is `""` when unset,
 * never `null` or absent. Walks the OpenAPI document's response schemas for nullable strings, and
 * checks real responses of the specification's resources against their schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear, waitForRun } from '../helpers/workflows.ts'

type Schema = {
  type?: string | string[]
  const?: unknown
  anyOf?: Schema[]
  properties?: Record<string, Schema>
  patternProperties?: Record<string, Schema>
  required?: string[]
  items?: Schema
}

/**
 * The fields that may be null: the specification's (`connector`, a payment's `transaction`, no
 * limit) and `runRetention`, a setting whose null means "the organization's default".
 */
const MAY_BE_NULL = new Set(['connector', 'transaction', 'maxRuns', 'remainRuns', 'runRetention'])

const isText = (s: Schema): boolean =>
  s.type === 'string' || typeof s.const === 'string' || (s.anyOf?.every(isText) ?? false)
const nullable = (s: Schema) => s.anyOf?.some((x) => x.type === 'null') ?? false

/** Every property (`path.to.field`) typed as a string that may also be null. */
function nullableStrings(s: Schema | undefined, at: string, found: string[]) {
  if (!s) return
  const texts = s.anyOf?.filter((x) => x.type !== 'null') ?? []
  if (nullable(s) && texts.length > 0 && texts.every(isText)) found.push(at)
  for (const x of s.anyOf ?? []) nullableStrings(x, at, found)
  for (const [k, v] of Object.entries(s.properties ?? {})) nullableStrings(v, `${at}.${k}`, found)
  for (const v of Object.values(s.patternProperties ?? {})) nullableStrings(v, `${at}.*`, found)
  if (s.items) nullableStrings(s.items, `${at}[]`, found)
}

/** Where `value` breaks the rule: a field its schema types as a string is null, absent or not a string. */
function breaches(s: Schema, value: unknown, at: string, found: string[]) {
  if (isText(s)) {
    if (typeof value !== 'string') found.push(`${at}: ${JSON.stringify(value)}`)
    return
  }
  if (s.properties && value && typeof value === 'object') {
    const record = value as Record<string, unknown>
    for (const [k, v] of Object.entries(s.properties)) {
      if (k in record || s.required?.includes(k)) breaches(v, record[k], `${at}.${k}`, found)
    }
  }
  const each = Object.values(s.patternProperties ?? {})[0]
  if (each && value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) breaches(each, v, `${at}.${k}`, found)
  }
  if (s.items && Array.isArray(value)) value.forEach((item, i) => breaches(s.items!, item, `${at}[${i}]`, found))
}

for (const kind of storeKinds()) {
  describe(`unset strings are "" on every resource (${kind})`, () => {
    let t: TestSystem
    let doc: { paths: Record<string, Record<string, { responses: Record<string, any> }>> }
    beforeAll(async () => {
      t = await openTestSystem(kind)
      doc = (await t.call('GET', '/v1/openapi.json', { key: null })).body
    })
    afterAll(() => t.close())

    const dataSchema = (path: string): Schema =>
      doc.paths[path].get.responses['200'].content['application/json'].schema.properties.data

    it('types no string of the documented answers as nullable, but the exceptions the specification names', () => {
      const found: string[] = []
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(operations)) {
          const schema = op.responses['200']?.content?.['application/json']?.schema
          nullableStrings(schema, `${method.toUpperCase()} ${path}`, found)
        }
      }
      const field = (at: string) => at.split('.').at(-1)!.replace('[]', '')
      expect(found.filter((at) => !MAY_BE_NULL.has(field(at)))).toEqual([])
    })

    it('answers "" for the unset strings of workflows, keys and service accounts', async () => {
      const w = await createWorkflow(t, { name: 'untouched', definition: linear({}, []) })
      const sa = (await t.call('POST', '/v1/service-accounts', { body: { name: 'idle', permissions: ['org:read'] } }))
        .body.data
      await t.call('POST', '/v1/api-keys', { body: { name: 'unused' } })
      const answers: [string, unknown][] = [
        ['/v1/workflows/{id}', (await t.call('GET', `/v1/workflows/${w.id}`)).body.data],
        ['/v1/workflows', (await t.call('GET', '/v1/workflows')).body.data],
        ['/v1/api-keys', (await t.call('GET', '/v1/api-keys')).body.data],
        ['/v1/service-accounts/{id}', (await t.call('GET', `/v1/service-accounts/${sa.id}`)).body.data],
        ['/v1/service-accounts', (await t.call('GET', '/v1/service-accounts')).body.data],
      ]
      const found: string[] = []
      for (const [path, data] of answers) breaches(dataSchema(path), data, path, found)
      expect(found).toEqual([])
      const workflow = answers[0][1] as Record<string, unknown>
      expect(workflow).toMatchObject({
        lastTriggeredAt: '',
        pausedReason: '',
        sourceTemplateId: '',
        responseNodeId: '',
      })
      expect(answers[3][1]).toMatchObject({ disabledAt: '' })
    })

    it('answers "" for the unset strings of the caller, runs, schedules and execution webhooks', async () => {
      const held = await createWorkflow(t, {
        name: 'held',
        definition: linear({ ok: { type: 'approval', payload: { message: 'ship it?' } } }, ['ok']),
      })
      const started = await t.call('POST', `/v1/workflows/${held.id}/run`, { body: { payload: {} } })
      const runId = started.body.data.runId
      const waiting = await waitForRun(t, runId, (r) => r.status === 'waiting')
      const ticking = await createLive(t, {
        name: 'ticking',
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'cronjob', payload: { expression: '0 9 * * *' }, children: [] } },
        },
      })
      const hook = await t.call('POST', '/v1/execution-webhooks', {
        body: { name: 'ops', url: 'https://93.184.215.14/hooks', subscribedEventTypes: ['run.failed'] },
      })
      const hookId = hook.body.data.endpoint.id
      const answers: [string, unknown][] = [
        ['/v1/me', (await t.call('GET', '/v1/me')).body.data],
        ['/v1/runs/{runId}', waiting],
        ['/v1/runs', (await t.call('GET', '/v1/runs')).body.data],
        ['/v1/workflows/{id}/runs', (await t.call('GET', `/v1/workflows/${held.id}/runs`)).body.data],
        ['/v1/workflows/{id}/schedule', (await t.call('GET', `/v1/workflows/${ticking.id}/schedule`)).body.data],
        ['/v1/execution-webhooks/{id}', (await t.call('GET', `/v1/execution-webhooks/${hookId}`)).body.data],
        ['/v1/execution-webhooks', (await t.call('GET', '/v1/execution-webhooks')).body.data],
      ]
      const found: string[] = []
      for (const [path, data] of answers) breaches(dataSchema(path), data, path, found)
      expect(found).toEqual([])
      expect(answers[0][1]).toMatchObject({ kind: 'key', sessionId: '' })
      expect(waiting).toMatchObject({ status: 'waiting', finishedAt: '', retryOf: '' })
      expect(waiting.nodes.ok).toMatchObject({ status: 'waiting', error: '', finishedAt: '' })
      expect(answers[4][1]).toMatchObject({ active: true, reason: '' })
      expect((answers[4][1] as { triggers: unknown[] }).triggers[0]).toMatchObject({
        lastFiredAt: '',
        lastRunId: '',
        lastOutcome: '',
        lastSkippedAt: '',
      })
      expect(answers[5][1]).toMatchObject({ disabledReason: '', disabledAt: '', previousSecretExpiresAt: '' })
      await t.call('POST', `/v1/runs/${runId}/cancel`)
    })
  })
}
