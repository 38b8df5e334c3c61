/**
 * kill -9 between a payment's verification and its settlement: the process dies while the
 * relayer's transaction waits to be mined. After a restart the payment is neither lost nor
 * settled twice, whether the transaction was mined while the process was dead or never reached
 * the chain at all (it is broadcast again), and its run starts exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Devnet } from '../../adapters/evm/devnet.ts'
import { createSolcCompiler } from '../../adapters/solc/compiler.ts'
import { api, type ServerProcess, startServer, until } from '../helpers/process.ts'
import { freshPostgresUrl, storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'
import { chainsOf, startTestDevnet, x402Payer } from '../helpers/x402.ts'

const KEY = 'svcsk_x402_crash_bootstrap_key_0123456789abcdef'
const PRICE = '40000'

for (const kind of storeKinds()) {
  describe(`x402 settlement across kill -9 (${kind})`, () => {
    const dir = tempDir()
    const compiler = createSolcCompiler()
    let devnet: Devnet
    let server: ServerProcess | undefined
    let env: Record<string, string>
    let drop: (() => Promise<void>) | undefined
    let payer: ReturnType<typeof x402Payer>
    let workflowId: string
    let recipient: string

    beforeAll(async () => {
      devnet = await startTestDevnet(compiler)
      const pg = kind === 'postgres' ? await freshPostgresUrl() : null
      drop = pg?.drop
      env = {
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_DATABASE_URL: pg?.url ?? '',
        AUTOMATON_BOOTSTRAP_KEY: KEY,
        AUTOMATON_CHAINS: chainsOf(devnet),
        AUTOMATON_X402_RELAYER_KEY: devnet.accounts[0].privateKey,
        AUTOMATON_WORKER_TIMEOUT_MS: '4000',
        AUTOMATON_HEARTBEAT_MS: '1000',
      }
      recipient = devnet.accounts[3].address
      payer = x402Payer(devnet, devnet.accounts[2].privateKey, { to: recipient, value: PRICE })
      // The first process waits long for a settlement: it is killed while waiting.
      server = await startServer({ env: { ...env, AUTOMATON_X402_SETTLE_TIMEOUT_MS: '60000' } })
      const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
        name: 'paid',
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['say'] },
            say: { type: 'log', payload: { message: 'paid {{$trigger.body.n}}' } },
          },
        },
      })
      expect(created.status).toBe(200)
      workflowId = created.body.data.id
      expect((await api(server.url, 'POST', `/v1/workflows/${workflowId}/publish`, KEY)).status).toBe(200)
    }, 60_000)
    afterAll(async () => {
      await server?.stop('SIGKILL')
      await payer?.rpc('evm_setAutomine', [true])
      await devnet?.stop()
      await compiler.close()
      await drop?.()
      dir.remove()
    })

    const runs = () => queryDatabase<{ id: string }>(env, 'SELECT id FROM runs WHERE workflow_id = $1', [workflowId])
    const paymentOf = (nonce: string) =>
      queryDatabase<{ status: string; transaction_hash: string | null; run_id: string | null }>(
        env,
        'SELECT status, transaction_hash, run_id FROM x402_payments WHERE nonce = $1',
        [nonce.toLowerCase()],
      ).then((rows) => rows[0])
    const pay = (url: string, header: string, n: number) =>
      fetch(`${url}/v1/x402/workflows/${workflowId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-payment': header },
        body: JSON.stringify({ n }),
      })

    /** Pays, kills the process once the relayer's transaction is out, does `whileDead`, restarts. */
    async function crashMidSettlement(n: number, whileDead: (hash: string) => Promise<void>) {
      const signed = await payer.sign()
      const header = payer.v1(signed)
      await payer.rpc('evm_setAutomine', [false])
      const inFlight = pay(server!.url, header, n).catch(() => null)
      const submitted = await until(
        'the settlement to be submitted',
        async () => {
          const row = await paymentOf(signed.authorization.nonce)
          return row?.status === 'settling' && row.transaction_hash ? row : undefined
        },
        20_000,
      )
      await server!.stop('SIGKILL')
      expect(await inFlight).toBeNull()
      await whileDead(submitted.transaction_hash!)
      server = await startServer({ env: { ...env, AUTOMATON_X402_SETTLE_TIMEOUT_MS: '1000' } })
      return { header, nonce: signed.authorization.nonce }
    }

    it('finishes a settlement mined while the process was dead, and starts its run once', async () => {
      const [payerBefore, recipientBefore] = await Promise.all([
        payer.balanceOf(payer.account.address),
        payer.balanceOf(recipient),
      ])
      const { header, nonce } = await crashMidSettlement(1, async () => {
        await payer.rpc('evm_mine')
        await payer.rpc('evm_setAutomine', [true])
      })
      // Nobody asks again: the reconciler finds the transaction mined and starts the run.
      const settled = await until(
        'the payment to be reconciled',
        async () => {
          const row = await paymentOf(nonce)
          return row?.status === 'settled' && row.run_id ? row : undefined
        },
        30_000,
      )
      expect((await runs()).map((r) => r.id)).toEqual([settled.run_id!])
      expect(await payer.balanceOf(payer.account.address)).toBe(payerBefore - BigInt(PRICE))
      expect(await payer.balanceOf(recipient)).toBe(recipientBefore + BigInt(PRICE))
      // The payer asking again gets that run, and nothing moves.
      const again = await pay(server!.url, header, 1)
      expect(again.status).toBe(200)
      expect((await again.json()).data.runIds).toEqual([settled.run_id])
      expect(await payer.balanceOf(payer.account.address)).toBe(payerBefore - BigInt(PRICE))
      const run = await until('the run to finish', async () => {
        const r = await api(server!.url, 'GET', `/v1/runs/${settled.run_id}`, KEY)
        return r.body.data?.status === 'success' ? r.body.data : undefined
      })
      expect(run.nodes.say.result.message).toBe('paid 1')
    }, 90_000)

    it('broadcasts again a settlement that never reached the chain, and settles it once', async () => {
      const before = await payer.balanceOf(payer.account.address)
      const runsBefore = (await runs()).length
      const { header, nonce } = await crashMidSettlement(2, async (hash) => {
        // The transaction is lost with the process: the chain never mines it.
        const dropped = await payer.rpc('anvil_dropTransaction', [hash])
        expect(dropped.error).toBeUndefined()
        await payer.rpc('evm_mine')
        await payer.rpc('evm_setAutomine', [true])
        expect(await payer.balanceOf(payer.account.address)).toBe(before)
      })
      const settled = await until(
        'the payment to be broadcast again and settled',
        async () => {
          const row = await paymentOf(nonce)
          return row?.status === 'settled' && row.run_id ? row : undefined
        },
        30_000,
      )
      expect(await payer.balanceOf(payer.account.address)).toBe(before - BigInt(PRICE))
      expect((await runs()).length).toBe(runsBefore + 1)
      const again = await pay(server!.url, header, 2)
      expect((await again.json()).data.runIds).toEqual([settled.run_id])
      // A run is admitted before the request that starts it answers, and a payment settled with its
      // run is no longer the reconciler's: once its run has finished, nothing can start another.
      await until('the run to finish', async () => {
        const r = await api(server!.url, 'GET', `/v1/runs/${settled.run_id}`, KEY)
        return r.body.data?.status === 'success' ? r.body.data : undefined
      })
      expect(await paymentOf(nonce)).toMatchObject({ status: 'settled', run_id: settled.run_id })
      expect((await runs()).length).toBe(runsBefore + 1)
      expect(await payer.balanceOf(payer.account.address)).toBe(before - BigInt(PRICE))
    }, 90_000)
  })
}
