/**
 * Paid workflows settled through an external facilitator over HTTP (the reference's `/verify`
 * and `/settle`): it verifies and settles on the devnet; its refusal is the 402's reason and
 * nothing is settled; a facilitator that settles and then never answers leaves the payment
 * `unknown`, answered 409 (never a fresh 402), and the reconciler finds it settled from the
 * nonce's on-chain state and starts the run once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Devnet } from '../../adapters/evm/devnet.ts'
import { createSolcCompiler } from '../../adapters/solc/compiler.ts'
import { type ScriptedFacilitator, startFacilitator } from '../helpers/facilitator.ts'
import { until } from '../helpers/process.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'
import { chainsOf, startTestDevnet, x402Payer } from '../helpers/x402.ts'

const PRICE = '30000'

for (const kind of storeKinds()) {
  describe(`x402 through an external facilitator (${kind})`, () => {
    const compiler = createSolcCompiler()
    let devnet: Devnet
    let facilitator: ScriptedFacilitator
    let t: TestSystem
    /** The same settings with a short settle timeout, for the facilitator that never answers. */
    let quick: TestSystem
    let payer: ReturnType<typeof x402Payer>
    let recipient: string
    let paid: { id: string }

    beforeAll(async () => {
      devnet = await startTestDevnet(compiler)
      facilitator = startFacilitator(devnet, devnet.accounts[1].privateKey)
      t = await openTestSystem(kind, {
        AUTOMATON_CHAINS: chainsOf(devnet),
        // No relayer: the facilitator settles. The settle timeout is the default (20 s), which no
        // settlement on a loaded machine comes near; only `quick` gives up after 2 s.
        AUTOMATON_X402_FACILITATOR_URL: facilitator.url,
      })
      quick = await openTestSystem(kind, {
        AUTOMATON_CHAINS: chainsOf(devnet),
        AUTOMATON_X402_FACILITATOR_URL: facilitator.url,
        AUTOMATON_X402_SETTLE_TIMEOUT_MS: '2000',
      })
      recipient = devnet.accounts[3].address
      payer = x402Payer(devnet, devnet.accounts[2].privateKey, { to: recipient, value: PRICE })
      paid = await createLive(t, {
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['say'] },
            say: { type: 'log', payload: { message: 'via facilitator {{$trigger.body.n}}' } },
          },
        },
      })
    }, 60_000)
    afterAll(async () => {
      facilitator?.stop()
      await t?.close()
      await quick?.close()
      await devnet?.stop()
      await compiler.close()
    })

    const call = (header: string, n: number) =>
      t.call('POST', `/v1/x402/workflows/${paid.id}`, { key: null, body: { n }, headers: { 'x-payment': header } })
    /** The runs a call with body `{ n }` started: each test pays with its own n, so another test's late settlement never counts here. */
    const runsOf = async (n: number) =>
      (
        await t.system.store.all<{ id: string; trigger_event: string }>(
          'SELECT id, trigger_event FROM runs WHERE workflow_id = $1',
          [paid.id],
        )
      )
        .filter((r) => (JSON.parse(r.trigger_event) as { body?: { n?: number } }).body?.n === n)
        .map((r) => r.id)

    it('verifies and settles through the facilitator, once, with the reference request bodies', async () => {
      facilitator.mode = 'normal'
      facilitator.calls.length = 0
      const before = await payer.balanceOf(payer.account.address)
      const signed = await payer.sign()
      const header = payer.v1(signed)
      const r = await call(header, 1)
      expect(r.status).toBe(200)
      expect(r.body.data.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      expect(JSON.parse(atob(r.headers.get('x-payment-response')!))).toMatchObject({
        success: true,
        transaction: r.body.data.payment.transaction,
      })
      expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify', '/settle'])
      expect(facilitator.calls[1].body).toMatchObject({
        x402Version: 1,
        paymentPayload: {
          x402Version: 1,
          scheme: 'exact',
          network: 'anvil',
          payload: { signature: signed.signature, authorization: { nonce: signed.authorization.nonce, value: PRICE } },
        },
        paymentRequirements: {
          scheme: 'exact',
          network: 'anvil',
          maxAmountRequired: PRICE,
          payTo: recipient,
          asset: devnet.token,
          extra: { name: 'USD Coin', version: '2' },
        },
      })
      expect(await payer.balanceOf(payer.account.address)).toBe(before - BigInt(PRICE))
      const run = await waitForRun(t, r.body.data.runIds[0])
      expect(run.nodes.say.result.message).toBe('via facilitator 1')
      // The same payment again: the same run, and the facilitator is not asked to settle again.
      const again = await call(header, 1)
      expect(again.body.data.runIds).toEqual(r.body.data.runIds)
      expect(facilitator.calls.filter((c) => c.path === '/settle')).toHaveLength(1)
    })

    it('sends v2 payments in the v2 shape', async () => {
      facilitator.mode = 'normal'
      facilitator.calls.length = 0
      const r = await t.call('POST', `/v1/x402/workflows/${paid.id}`, {
        key: null,
        body: { n: 2 },
        headers: { 'payment-signature': payer.v2(await payer.sign()) },
      })
      expect(r.status).toBe(200)
      expect(facilitator.calls[1].body).toMatchObject({
        x402Version: 2,
        paymentPayload: {
          x402Version: 2,
          accepted: { scheme: 'exact', network: `eip155:${devnet.chainId}`, amount: PRICE },
        },
        paymentRequirements: { network: `eip155:${devnet.chainId}`, amount: PRICE, payTo: recipient },
      })
    })

    it("answers the facilitator's refusal as the 402's reason, and settles nothing", async () => {
      facilitator.mode = 'refuse'
      facilitator.calls.length = 0
      const before = await payer.balanceOf(payer.account.address)
      const r = await call(payer.v1(await payer.sign()), 3)
      expect(r.status).toBe(402)
      expect(r.body.error).toBe('insufficient_funds')
      expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify'])
      expect(await payer.balanceOf(payer.account.address)).toBe(before)
      expect(await runsOf(3)).toEqual([])
    })

    it("reconciles a settlement whose answer never came from the chain's state, and starts the run once", async () => {
      const slow = await createLive(quick, {
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'slow' } } },
        },
      })
      const call = (header: string, n: number) =>
        quick.call('POST', `/v1/x402/workflows/${slow.id}`, {
          key: null,
          body: { n },
          headers: { 'x-payment': header },
        })
      const runsOf = async (n: number) =>
        (
          await quick.system.store.all<{ id: string; trigger_event: string }>(
            'SELECT id, trigger_event FROM runs WHERE workflow_id = $1',
            [slow.id],
          )
        )
          .filter((r) => (JSON.parse(r.trigger_event) as { body?: { n?: number } }).body?.n === n)
          .map((r) => r.id)
      facilitator.mode = 'settle-then-hang'
      const before = await payer.balanceOf(payer.account.address)
      const header = payer.v1(await payer.sign())
      const r = await call(header, 4)
      expect(r.status).toBe(409)
      expect(r.body.message).toContain('not confirmed')
      // Settled on chain by the facilitator, though it never said so (perhaps after the 409, on a loaded machine).
      await until(
        'the settlement to be mined',
        async () => (await payer.balanceOf(payer.account.address)) === before - BigInt(PRICE),
        20_000,
      )
      expect(await payer.balanceOf(payer.account.address)).toBe(before - BigInt(PRICE))
      facilitator.mode = 'normal'
      // The reconciler looks at payments left alone for the settle timeout and 5 s more, every 2 s.
      await until(
        "the reconciler to start the settled payment's run",
        async () => (await runsOf(4)).length >= 1,
        40_000,
      )
      const reconciled = await runsOf(4)
      expect(reconciled).toHaveLength(1)
      // The same payment again answers the run the reconciler started, and starts no other.
      const again = await call(header, 4)
      expect(again.status).toBe(200)
      expect(again.body.data.runIds).toEqual(reconciled)
      // The transaction is found from the token's AuthorizationUsed event.
      expect(again.body.data.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      expect(await runsOf(4)).toEqual(reconciled)
      expect(await payer.balanceOf(payer.account.address)).toBe(before - BigInt(PRICE))
    }, 90_000)
  })
}
