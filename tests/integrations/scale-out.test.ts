/**
 * Integration webhooks on an API process, with a worker beside it (Postgres and NATS): the API
 * admits the run or posts the resume, the worker executes it; a run of pure nodes ends at
 * admission, in the API process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'
import { postPayment, paymentEvent, triggered } from './helpers.ts'

const enabled = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
if (!enabled)
  warnSkipped(
    'integration webhooks on an API process with a worker',
    TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL',
  )
const SECRET = 'whsec_scale_0123456789abcdef'

describe.skipIf(!enabled)('integration webhooks on an API process with a worker', () => {
  let api: TestSystem
  let worker: TestSystem
  beforeAll(async () => {
    api = await openTestSystem(
      'postgres',
      { AUTOMATON_NATS_URL: TEST_NATS_URL!, AUTOMATON_NATS_STREAM: `T_INTEGRATIONS_${Date.now()}` },
      { role: 'api' },
    )
    worker = await api.openSibling({}, { role: 'worker' })
    await api.call('POST', '/v1/connectors', {
      body: { type: 'payprovider', name: 'main', data: { signingSecret: SECRET } },
    })
  })
  afterAll(async () => {
    await worker?.stop()
    await api?.close()
  })

  const finishedHere = async (system: TestSystem) => {
    const text = (await system.call('GET', '/metrics', { key: null })).body as string
    return Number(
      text
        .split('\n')
        .find((l) => l.startsWith('automaton_runs_finished_total{status="success"} '))
        ?.split(' ')[1] ?? 0,
    )
  }

  it('ends a run of pure nodes at admission, in the API process, and resumes a waiting run on the worker', async () => {
    const w = await triggered(api, 'payprovider-payment-receive', {}, 'paid {{$trigger.body.data.object.amount}}')
    const before = { api: await finishedHere(api), worker: await finishedHere(worker) }
    const started = await postPayment(api, api.orgId, paymentEvent('evt_scale_1', 4200), [SECRET])
    expect(started.body.action).toBe('triggered')
    // Over when the webhook is answered: no trip to the worker.
    const run = (await api.call('GET', `/v1/runs/${started.body.runIds[0]}`)).body.data
    expect(run).toMatchObject({ workflowId: w.id, status: 'success' })
    expect(run.nodes.say.result.message).toBe('paid 4200')
    expect(await finishedHere(api)).toBe(before.api + 1)
    expect(await finishedHere(worker)).toBe(before.worker)
    expect(api.system.engine.executor.active).toBe(0)

    const holder = await createLive(api, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['hold'] },
          hold: {
            type: 'wait',
            payload: {
              triggerType: 'payprovider-payment-receive',
              triggerConfig: { 'data.object.metadata.orderId': 'order-evt_scale_2' },
            },
            children: ['done'],
          },
          done: { type: 'log', branch: 'resumed', payload: { message: 'settled {{hold.result.data.id}}' } },
        },
      },
    })
    const runId = (await api.call('POST', `/v1/workflows/${holder.id}/run`, { body: { payload: {} } })).body.data.runId
    await waitForRun(api, runId, (r) => r.status === 'waiting')
    const resumed = await postPayment(api, api.orgId, paymentEvent('evt_scale_2', 10), [SECRET])
    expect(resumed.body.runIds).toContain(runId)
    expect((await waitForRun(api, runId)).nodes.done.result.message).toBe('settled evt_scale_2')
  })
})
