/** The index of live trigger nodes that routing reads: kept with every change of a workflow's live version and state. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createWorkflow, publish } from '../helpers/workflows.ts'
import { postSource, transfer, WALLET, webhookSecret } from './helpers.ts'

const rowsOf = (t: TestSystem, workflowId: string) =>
  t.system.store.all<{
    trigger_node_id: string
    trigger_type: string
    config: string
    connector_id: string | null
    version: number
    active: number
  }>(
    'SELECT trigger_node_id, trigger_type, config, connector_id, version, active FROM live_triggers WHERE workflow_id = $1 ORDER BY trigger_node_id',
    [workflowId],
  )

for (const kind of storeKinds()) {
  describe(`the live trigger index (${kind})`, () => {
    let t: TestSystem
    let secret: string
    beforeAll(async () => {
      t = await openTestSystem(kind)
      secret = await webhookSecret(t)
    })
    afterAll(() => t.close())
    const send = (id: string) =>
      postSource(t, t.orgId, secret, { id, type: 'erc20-receive', data: transfer(WALLET, '500') })
    const definition = (type: string) => ({
      triggerNodeIds: ['chain', 'pay'],
      nodes: {
        chain: { type, payload: { chainId: 1, address: WALLET }, children: ['say'] },
        pay: { type: 'payprovider-payment-receive', payload: {}, children: ['say'] },
        say: { type: 'log', payload: { message: 'hi' } },
      },
    })

    it('follows publish, pause, resume, archive and a new live version', async () => {
      const w = await createWorkflow(t, { definition: definition('erc20-receive') })
      expect(await rowsOf(t, w.id)).toEqual([])
      expect((await send('idx-0')).body.reason).toBe('no_matching_workflow')
      await publish(t, w.id)
      expect(await rowsOf(t, w.id)).toEqual([
        {
          trigger_node_id: 'chain',
          trigger_type: 'erc20-receive',
          config: JSON.stringify({ address: WALLET, chainId: 1 }),
          connector_id: null,
          version: 1,
          active: 1,
        },
        {
          trigger_node_id: 'pay',
          trigger_type: 'payprovider-payment-receive',
          config: '{}',
          connector_id: null,
          version: 1,
          active: 1,
        },
      ])
      expect((await send('idx-1')).body.action).toBe('triggered')

      await t.call('POST', `/v1/workflows/${w.id}/pause`)
      expect((await rowsOf(t, w.id)).map((r) => r.active)).toEqual([0, 0])
      expect((await send('idx-2')).body.reason).toBe('no_matching_workflow')
      await t.call('POST', `/v1/workflows/${w.id}/resume`)
      expect((await send('idx-3')).body.action).toBe('triggered')

      await t.call('PUT', `/v1/workflows/${w.id}`, { body: { definition: definition('erc20-send') } })
      expect((await send('idx-4')).body.action).toBe('triggered')
      await publish(t, w.id)
      expect((await rowsOf(t, w.id)).map((r) => [r.trigger_type, r.version])).toEqual([
        ['erc20-send', 2],
        ['payprovider-payment-receive', 2],
      ])
      expect((await send('idx-5')).body.reason).toBe('no_matching_workflow')

      await t.call('DELETE', `/v1/workflows/${w.id}`)
      expect(await rowsOf(t, w.id)).toEqual([])
      await t.call('POST', `/v1/workflows/${w.id}/unarchive`)
      expect(await rowsOf(t, w.id)).toHaveLength(2)
    })

    it('marks a workflow paused by its last allowed run in the same transaction', async () => {
      const w = await createWorkflow(t, { definition: definition('erc20-receive'), maxRuns: 1 })
      await publish(t, w.id)
      expect((await send('idx-max-1')).body.action).toBe('triggered')
      expect((await rowsOf(t, w.id)).map((r) => r.active)).toEqual([0, 0])
      expect((await send('idx-max-2')).body.runIds).toEqual([])
    })

    it('indexes at start the live workflows it has no rows for', async () => {
      const w = await createWorkflow(t, { definition: definition('erc20-receive') })
      await publish(t, w.id)
      await t.system.store.write((tx) => tx.run('DELETE FROM live_triggers WHERE workflow_id = $1', [w.id]))
      const restarted = await t.openSibling()
      try {
        expect(await rowsOf(restarted, w.id)).toHaveLength(2)
      } finally {
        await restarted.stop()
      }
    })
  })
}
