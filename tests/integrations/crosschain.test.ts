/** The cross-chain callback: the operator's API key, the body, starting a workflow and resuming a waiting run. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'
import { expectRefused, runCount, triggered } from './helpers.ts'

const API_KEY = 'cc_key_0123456789abcdef'
const PATH = '/v1/internal/crosschain/order-completed'

const order = (orderId: string, clientReferenceId: string, extra: Record<string, unknown> = {}) => ({
  orderId,
  clientReferenceId,
  event: 'order.completed',
  status: 'completed',
  txHash: `0x${'e'.repeat(64)}`,
  callbackMetadata: { invoice: 'inv-7' },
  payment: {
    dstAmount: '1500000',
    dstChain: 8453,
    dstTokenAddress: '0x4444444444444444444444444444444444444444',
    dstTokenDecimals: 6,
    dstTokenSymbol: 'USDC',
    recipientAddress: '0x5555555555555555555555555555555555555555',
  },
  ...extra,
})

for (const kind of storeKinds()) {
  describe(`the cross-chain callback (${kind})`, () => {
    let t: TestSystem
    const post = (body: unknown, key: string | null = API_KEY, sys = t) =>
      sys.call('POST', PATH, { key: null, body, headers: key === null ? {} : { 'x-api-key': key } })
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_CROSSCHAIN_API_KEY: API_KEY })
    })
    afterAll(() => t.close())

    it('starts a run of the workflow clientReferenceId names, answering { executionId, runId }', async () => {
      const w = await triggered(
        t,
        'crosschain',
        { statuses: ['completed'] },
        'paid {{$trigger.body.payment.dstAmount}} for {{$trigger.body.callbackMetadata.invoice}}',
      )
      const r = await post(order('ord-1', w.id))
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ action: 'triggered' })
      expect(r.body.executionId).toMatch(/^evt_/)
      const run = await waitForRun(t, r.body.runId)
      expect(run).toMatchObject({ workflowId: w.id, triggerType: 'crosschain', eventId: r.body.executionId })
      expect(run.nodes.say.result.message).toBe('paid 1500000 for inv-7')
      const again = await post(order('ord-1', w.id))
      expect(again.body).toEqual({
        executionId: r.body.executionId,
        runId: r.body.runId,
        action: 'skipped',
        reason: 'duplicate',
      })
      const filtered = await post(order('ord-2', w.id, { status: 'refunded' }))
      expect(filtered.body).toMatchObject({ runId: '', action: 'skipped', reason: 'no_matching_trigger' })
    })

    it('resumes the waiting run clientReferenceId names', async () => {
      const w = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['pay'] },
            pay: { type: 'wait', payload: { triggerType: 'crosschain', timeoutMs: 60_000 }, children: ['done'] },
            done: {
              type: 'log',
              branch: 'resumed',
              payload: { message: 'order {{pay.result.data.orderId}} {{pay.result.data.status}}' },
            },
          },
        },
      })
      const runId = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })).body.data.runId
      await waitForRun(t, runId, (r) => r.status === 'waiting')
      const r = await post(order('ord-3', runId))
      expect(r.body).toMatchObject({ runId, action: 'resumed' })
      expect((await waitForRun(t, runId)).nodes.done.result.message).toBe('order ord-3 completed')
      expect((await post(order('ord-4', runId))).body).toMatchObject({
        runId: '',
        action: 'skipped',
        reason: 'not_waiting',
      })
    })

    it('refuses a wrong or missing key with 401 and a bad body with 400 naming each problem, starting nothing', async () => {
      const before = await runCount(t)
      const w = await triggered(t, 'crosschain', {})
      await expectRefused(t, await post(order('ord-5', w.id), null), 401, /x-api-key/, before)
      await expectRefused(t, await post(order('ord-5', w.id), `${API_KEY}x`), 401, /x-api-key/, before)
      const { payment: _, ...noPayment } = order('ord-5', w.id)
      const bad = await post({ ...noPayment, orderId: 7, clientReferenceId: 'acme-123' })
      const details = bad.body.details
      await expectRefused(t, bad, 400, /\/orderId: must be a non-empty string/, before)
      expect(bad.body.message).toContain('/clientReferenceId: must name a workflow')
      expect(bad.body.message).toContain('/payment: must be an object')
      expect(details).toEqual(
        expect.arrayContaining([
          { path: '/orderId', message: 'must be a non-empty string' },
          { path: '/clientReferenceId', message: expect.stringContaining('must name a workflow') },
          { path: '/payment', message: 'must be an object' },
        ]),
      )
      await expectRefused(t, await post(order('ord-5', 'wf_doesnotexist')), 400, /does not exist/, before)
    })

    it('refuses everything while AUTOMATON_CROSSCHAIN_API_KEY is unset', async () => {
      const unset = await t.openSibling({ AUTOMATON_CROSSCHAIN_API_KEY: '' })
      try {
        const r = await post(order('ord-6', 'wf_x'), API_KEY, unset)
        expect(r.status).toBe(401)
        expect(r.body).toMatchObject({ code: 401, message: expect.stringContaining('AUTOMATON_CROSSCHAIN_API_KEY') })
      } finally {
        await unset.stop()
      }
    })
  })
}
