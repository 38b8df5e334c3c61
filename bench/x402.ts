/**
 * x402 on the devnet: verification alone (the EIP-712 signature check every paid call starts
 * with, on one core), and paid calls end to end through the HTTP app (verify, claim the nonce,
 * settle on chain through the relayer, start the run), with the runs finishing.
 *   bun bench/x402.ts [--scale 0.2]
 */
import { createViemChains } from '../adapters/evm/chains.ts'
import { createSolcCompiler } from '../adapters/solc/compiler.ts'
import { loadConfig } from '../core/config.ts'
import { silentLogger } from '../core/ports/logger.ts'
import { openSystem } from '../main.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import { chainsOf, startTestDevnet, x402Payer } from '../tests/helpers/x402.ts'
import { organizationWithKey } from './served.ts'
import type { Result } from './store-writes.ts'

const PRICE = '1000'

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const scale = options.scale ?? 1
  const compiler = createSolcCompiler()
  const devnet = await startTestDevnet(compiler)
  const dir = tempDir('automaton-bench-x402-')
  const chainsEnv = chainsOf(devnet)
  const system = await openSystem(
    loadConfig({
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_CHAINS: chainsEnv,
      AUTOMATON_X402_RELAYER_KEY: devnet.accounts[0].privateKey,
    }),
    { logger: silentLogger },
  )
  try {
    const recipient = devnet.accounts[3].address
    const payer = x402Payer(devnet, devnet.accounts[2].privateKey, { to: recipient, value: PRICE })

    // Verification alone, on one core.
    const chains = createViemChains(JSON.parse(chainsEnv))
    const token = { address: devnet.token, name: 'USD Coin', version: '2' }
    const signed = await Promise.all(Array.from({ length: 200 }, () => payer.sign()))
    const verifications = Math.max(500, Math.round(3000 * scale))
    for (let i = 0; i < 100; i++)
      await chains.verifyAuthorization(devnet.chainId, token, signed[i % 200].authorization, signed[i % 200].signature)
    let t0 = performance.now()
    for (let i = 0; i < verifications; i++) {
      if (
        !(await chains.verifyAuthorization(
          devnet.chainId,
          token,
          signed[i % 200].authorization,
          signed[i % 200].signature,
        ))
      )
        throw new Error('a valid payment did not verify')
    }
    const verifyPerSecond = verifications / ((performance.now() - t0) / 1000)

    // Paid calls end to end.
    const { key } = await organizationWithKey(system, 'bench')
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      system.app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      )
    const created = (await (
      await call('POST', '/v1/workflows', {
        name: 'paid',
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'paid' } } },
        },
      })
    ).json()) as { data: { id: string } }
    await call('POST', `/v1/workflows/${created.data.id}/publish`)
    const paidCalls = Math.max(100, Math.round(600 * scale))
    const headers = await Promise.all(Array.from({ length: paidCalls }, async () => payer.v1(await payer.sign())))
    const inFlight = 16
    const times: number[] = []
    const runIds: string[] = []
    let next = 0
    t0 = performance.now()
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < headers.length) {
          const header = headers[next++]
          const s = performance.now()
          const response = await call('POST', `/v1/x402/workflows/${created.data.id}`, {}, { 'x-payment': header })
          const body = (await response.json()) as { data: { runIds: string[] } }
          if (response.status !== 200)
            throw new Error(`a paid call answered ${response.status}: ${JSON.stringify(body)}`)
          times.push(performance.now() - s)
          runIds.push(body.data.runIds[0])
        }
      }),
    )
    const paidSeconds = (performance.now() - t0) / 1000
    // Every run finishes.
    for (;;) {
      const rows = await system.store.all<{ n: number }>(
        "SELECT COUNT(*) AS n FROM runs WHERE workflow_id = $1 AND status = 'success'",
        [created.data.id],
      )
      if (Number(rows[0].n) >= paidCalls) break
      await Bun.sleep(20)
    }
    const allDone = (performance.now() - t0) / 1000
    times.sort((a, b) => a - b)
    const f = (n: number) => Math.round(n * 10) / 10
    return [
      {
        name: 'x402 verification alone (EIP-712 signature check), one core',
        value: Math.round(verifyPerSecond),
        unit: 'checks/s',
        note: `${verifications} checks; target ≥ 1,000/s`,
      },
      {
        name: `x402 paid calls end to end on the devnet (verify + settle + run), ${inFlight} in flight`,
        value: Math.round(paidCalls / paidSeconds),
        unit: 'calls/s',
        note: `${paidCalls} calls; p50 ${f(percentile(times, 50))} ms, p99 ${f(percentile(times, 99))} ms; every run success after ${f(allDone)} s; anvil mines each settlement as it arrives`,
      },
    ]
  } finally {
    await system.close()
    await devnet.stop()
    await compiler.close()
    dir.remove()
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf('--scale')
  for (const r of await run({ scale: at >= 0 ? Number(process.argv[at + 1]) : 1 }))
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
