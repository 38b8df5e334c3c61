/** Issue 10, plugin authors: what a new plugin author tripped on, answered where they look. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

describe('what a plugin author sees', () => {
  let t: TestSystem
  beforeAll(async () => {
    t = await openTestSystem('sqlite')
  })
  afterAll(() => t?.close())

  it('lists no path with a trailing slash in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/v1/openapi.json', { key: null })).body
    expect(Object.keys(doc.paths).filter((p) => p.length > 1 && p.endsWith('/'))).toEqual([])
    // Both spellings still answer.
    expect((await t.call('GET', '/v1/connectors')).status).toBe(200)
    expect((await t.call('GET', '/v1/connectors/')).status).toBe(200)
  })

  it('names the setting that allows a private target, and gives a failed run an error code', async () => {
    const w = await createLive(t, {
      definition: linear({ call: { type: 'http-request', payload: { url: 'http://127.0.0.1:9/x' } } }, ['call']),
    })
    const runId = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })).body.data.runId
    const run = await waitForRun(t, runId)
    expect(run.status).toBe('failure')
    expect(run.error.message).toContain('AUTOMATON_ALLOW_PRIVATE_TARGETS')
    expect(typeof run.error.code).toBe('string')
  })
})
