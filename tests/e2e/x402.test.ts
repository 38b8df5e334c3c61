/**
 * Paid workflows over x402, settled on a real local chain (the devnet): a 402 with the v1 body and
 * the v2 header, a payment verified and settled (the token balances move by exactly the price),
 * the run started once, a replay answered with the same run and no second transfer, every
 * refusal with the reference's error code and nothing settled, discovery, and a private paid
 * workflow behind its webhook secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Devnet } from '../../adapters/evm/devnet.ts'
import { createSolcCompiler } from '../../adapters/solc/compiler.ts'
import { eventually } from '../helpers/eventually.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, publish, waitForRun } from '../helpers/workflows.ts'
import { finish, type ScriptedOpenAi, startScriptedOpenAi, textDelta, usageOnly } from '../helpers/openai-server.ts'
import { chainsOf, randomNonce, type SignOverrides, startTestDevnet, x402Payer } from '../helpers/x402.ts'

const PRICE = '25000' // 0.025 USDC

for (const kind of storeKinds()) {
  describe(`x402 paid workflows on the devnet (${kind})`, () => {
    let devnet: Devnet
    let t: TestSystem
    /** The same installation's settings with a short settle timeout, for the test that holds blocks back. */
    let quick: TestSystem
    const compiler = createSolcCompiler()
    let buyer402: ReturnType<typeof x402Payer>
    let payer: ReturnType<typeof x402Payer>['account']
    let recipient: string
    let balanceOf: (address: string) => Promise<bigint>
    let served: ReturnType<typeof Bun.serve> | undefined
    let model: ScriptedOpenAi

    beforeAll(async () => {
      devnet = await startTestDevnet(compiler)
      model = startScriptedOpenAi()
      t = await openTestSystem(kind, {
        // The model writes an import's summaries, category and tags.
        AUTOMATON_AI_BASE_URL: model.url,
        AUTOMATON_AI_MODEL: 'scripted',
        AUTOMATON_AI_DEFAULT_CREDITS: '5',
        AUTOMATON_CHAINS: chainsOf(devnet),
        AUTOMATON_X402_RELAYER_KEY: devnet.accounts[0].privateKey,
        // The import calls this installation's own paid workflow over HTTP, on 127.0.0.1.
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      })
      // A settlement not mined this fast answers "not confirmed" and is reconciled. Only the test that
      // holds blocks back may see that: `t` keeps the default (20 s), which no settlement on a loaded
      // machine comes near; `quick` (the same relayer, as a second process would share it) answers after 2 s.
      quick = await openTestSystem(kind, {
        AUTOMATON_CHAINS: chainsOf(devnet),
        AUTOMATON_X402_RELAYER_KEY: devnet.accounts[0].privateKey,
        AUTOMATON_X402_SETTLE_TIMEOUT_MS: '2000',
      })
      recipient = devnet.accounts[3].address
      buyer402 = x402Payer(devnet, devnet.accounts[2].privateKey, { to: recipient, value: PRICE })
      payer = buyer402.account
      balanceOf = buyer402.balanceOf
    }, 60_000)
    afterAll(async () => {
      served?.stop(true)
      await t?.close()
      await quick?.close()
      await model?.stop()
      await devnet?.stop()
      await compiler.close()
    })

    const sign = (overrides: SignOverrides = {}) => buyer402.sign(overrides)
    const v1 = (p: { signature: string; authorization: unknown }, network = 'anvil') => buyer402.v1(p, network)
    const v2 = (p: { signature: string; authorization: unknown }) => buyer402.v2(p)

    let paid: { id: string }
    beforeAll(async () => {
      paid = await createLive(t, {
        name: 'quote',
        description: 'A paid quote',
        x402Config: {
          chainId: devnet.chainId,
          price: PRICE,
          token: devnet.token,
          recipient,
          discoverable: true,
          discoveryInput: { schema: { type: 'object', required: ['symbol'] }, example: { symbol: 'ETH' } },
          discoveryMetadata: { name: 'Quote', description: 'A price quote', tags: ['markets'] },
        },
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['say'] },
            say: { type: 'log', payload: { message: 'quote for {{$trigger.body.symbol}}' } },
          },
        },
      })
    }, 60_000)

    const call = (headers: Record<string, string>, body: unknown = { symbol: 'ETH' }) =>
      t.call('POST', `/v1/x402/workflows/${paid.id}`, { key: null, body, headers })

    it('answers 402 with the v1 body and the v2 header, and checks the input before taking anything', async () => {
      const r = await call({})
      expect(r.status).toBe(402)
      expect(r.body).toMatchObject({
        x402Version: 1,
        accepts: [
          {
            scheme: 'exact',
            network: 'anvil',
            maxAmountRequired: PRICE,
            payTo: recipient,
            asset: devnet.token,
            extra: { name: 'USD Coin', version: '2' },
            mimeType: 'application/json',
          },
        ],
      })
      expect(r.body.accepts[0].resource).toContain(`/v1/x402/workflows/${paid.id}`)
      const v2Required = JSON.parse(atob(r.headers.get('payment-required')!))
      expect(v2Required).toMatchObject({
        x402Version: 2,
        accepts: [{ scheme: 'exact', network: `eip155:${devnet.chainId}`, amount: PRICE, payTo: recipient }],
      })
      expect(r.headers.get('access-control-expose-headers')).toContain('PAYMENT-REQUIRED')
      const noInput = await call({ 'x-payment': v1(await sign()) }, {})
      expect(noInput.status).toBe(400)
      expect(noInput.body.details).toEqual([{ path: '/symbol', message: 'required' }])
    })

    it('settles a payment on chain by exactly the price, starts the run once, and answers a replay with the same run', async () => {
      const [payerBefore, recipientBefore] = await Promise.all([balanceOf(payer.address), balanceOf(recipient)])
      const header = v1(await sign())
      const r = await call({ 'x-payment': header })
      expect(r.status).toBe(200)
      // (Bun's toMatchObject writes asymmetric matchers into what it checks: check a copy.)
      expect(structuredClone(r.body.data)).toMatchObject({
        action: 'triggered',
        runIds: [expect.stringMatching(/^run_/)],
        payment: { network: 'anvil', amount: PRICE, payer: payer.address },
      })
      expect(r.body.data.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      const confirmation = JSON.parse(atob(r.headers.get('x-payment-response')!))
      expect(confirmation).toMatchObject({
        success: true,
        transaction: r.body.data.payment.transaction,
        payer: payer.address,
      })
      expect(await balanceOf(payer.address)).toBe(payerBefore - BigInt(PRICE))
      expect(await balanceOf(recipient)).toBe(recipientBefore + BigInt(PRICE))
      // A paid call waits for the run by default: the buyer receives the output it paid for.
      expect(r.body.data.run).toEqual({
        id: r.body.data.runIds[0],
        status: 'success',
        output: { message: 'quote for ETH' },
      })
      const run = await waitForRun(t, r.body.data.runIds[0])
      expect(run.nodes.say.result.message).toBe('quote for ETH')
      // The run is marked as paid: who paid what, on which network, in which transaction.
      expect(run.payment).toEqual({
        payer: payer.address.toLowerCase(),
        amount: PRICE,
        asset: devnet.token.toLowerCase(),
        network: `eip155:${devnet.chainId}`,
        transaction: r.body.data.payment.transaction,
      })
      const listed = (await t.call('GET', `/v1/workflows/${paid.id}/runs`)).body.data.items
      expect(listed[0].payment.transaction).toBe(r.body.data.payment.transaction)

      const again = await call({ 'x-payment': header })
      expect(again.status).toBe(200)
      expect(again.body.data.runIds).toEqual(r.body.data.runIds)
      expect(await balanceOf(payer.address)).toBe(payerBefore - BigInt(PRICE))
      const runs = await t.system.store.all<{ id: string }>('SELECT id FROM runs WHERE workflow_id = $1', [paid.id])
      expect(runs).toHaveLength(1)
    })

    it('takes a v2 payment and answers PAYMENT-RESPONSE', async () => {
      const r = await call({ 'payment-signature': v2(await sign()) })
      expect(r.status).toBe(200)
      // CAIP-2 in every v2 message, as PAYMENT-REQUIRED named the network.
      expect(JSON.parse(atob(r.headers.get('payment-response')!))).toMatchObject({
        success: true,
        payer: payer.address,
        network: `eip155:${devnet.chainId}`,
      })
    })

    it('answers a settlement that times out with "not confirmed", never a fresh 402, and settles it once when mined', async () => {
      const rpc = buyer402.rpc
      const before = await balanceOf(payer.address)
      const slow = await createLive(quick, {
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'slow' } } },
        },
      })
      const call = (headers: Record<string, string>) =>
        quick.call('POST', `/v1/x402/workflows/${slow.id}`, { key: null, body: {}, headers })
      const runsOf = async () =>
        (await quick.system.store.all<{ id: string }>('SELECT id FROM runs WHERE workflow_id = $1', [slow.id])).length
      const runsBefore = await runsOf()
      const asked = v1(await sign())
      const reconciled = v1(await sign())
      await rpc('evm_setAutomine', [false])
      let mined = false
      try {
        const first = await call({ 'x-payment': asked })
        expect(first.status).toBe(409)
        expect(first.headers.get('retry-after')).toBe('5')
        expect(first.body.message).toContain('send the same payment again')
        expect((await call({ 'x-payment': reconciled })).status).toBe(409)
        expect(await balanceOf(payer.address)).toBe(before)
        expect(await runsOf()).toBe(runsBefore)
        // Asked again before it is mined: still not confirmed, still no 402 and no second transfer.
        expect((await call({ 'x-payment': asked })).status).toBe(409)
        await rpc('evm_mine')
        mined = true
      } finally {
        await rpc('evm_setAutomine', [true])
        if (!mined) await rpc('evm_mine')
      }
      const settled = await call({ 'x-payment': asked })
      expect(settled.status).toBe(200)
      expect(settled.body.data.runIds).toHaveLength(1)
      // The other payment was never asked about again: the reconciler finds it mined and starts its run.
      // The reconciler looks at payments left alone for the settle timeout and 5 s more, every 2 s.
      await eventually(
        async () => (await runsOf()) >= runsBefore + 2,
        "the reconciler to start the mined payment's run",
        40_000,
      )
      expect(await runsOf()).toBe(runsBefore + 2)
      expect(await balanceOf(payer.address)).toBe(before - 2n * BigInt(PRICE))
      const rows = await quick.system.store.all<{ status: string; run_id: string | null }>(
        'SELECT status, run_id FROM x402_payments WHERE workflow_id = $1',
        [slow.id],
      )
      expect(rows.filter((r) => r.status === 'unknown' || r.status === 'settling' || r.status === 'verified')).toEqual(
        [],
      )
      expect((await call({ 'x-payment': reconciled })).body.data.runIds).toHaveLength(1)
    }, 90_000)

    it('refuses every bad payment with the reference error code, and settles nothing', async () => {
      const before = await balanceOf(payer.address)
      const now = BigInt(Math.floor(Date.now() / 1000))
      const cases: Array<[string, Record<string, string>]> = [
        ['invalid_exact_evm_payload_authorization_value', { 'x-payment': v1(await sign({ value: '1' })) }],
        [
          'invalid_exact_evm_payload_recipient_mismatch',
          { 'x-payment': v1(await sign({ to: devnet.accounts[1].address })) },
        ],
        [
          'invalid_exact_evm_payload_authorization_valid_before',
          { 'x-payment': v1(await sign({ validBefore: now + 2n })) },
        ],
        [
          'invalid_exact_evm_payload_authorization_valid_after',
          { 'x-payment': v1(await sign({ validAfter: now + 600n })) },
        ],
        [
          'invalid_exact_evm_payload_signature',
          { 'x-payment': v1({ ...(await sign()), signature: (await sign()).signature }) },
        ],
        ['invalid_exact_evm_payload_signature', { 'x-payment': v1(await sign({ chainId: 1 })) }],
        // Signed for another token (asset): its domain differs, so the signature does not verify.
        ['invalid_exact_evm_payload_signature', { 'x-payment': v1(await sign({ token: devnet.accounts[1].address })) }],
        ['invalid_network', { 'x-payment': v1(await sign(), 'base') }],
        ['invalid_payload', { 'x-payment': 'not base64 json' }],
      ]
      for (const [code, headers] of cases) {
        const r = await call(headers)
        expect({ code, status: r.status, error: r.body.error }).toEqual({ code, status: 402, error: code })
      }
      expect(await balanceOf(payer.address)).toBe(before)
    })

    it('refuses a nonce already used to pay for another workflow, and settles nothing', async () => {
      const nonce = randomNonce()
      expect((await call({ 'x-payment': v1(await sign({ nonce })) })).status).toBe(200)
      const before = await balanceOf(payer.address)
      const other = await createLive(t, {
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'other' } } },
        },
      })
      const r = await t.call('POST', `/v1/x402/workflows/${other.id}`, {
        key: null,
        body: {},
        headers: { 'x-payment': v1(await sign({ nonce })) },
      })
      expect(r.status).toBe(402)
      expect(r.body.error).toBe('invalid_exact_evm_payload_authorization_nonce_used')
      expect(await balanceOf(payer.address)).toBe(before)
      expect(await t.system.store.all('SELECT id FROM runs WHERE workflow_id = $1', [other.id])).toEqual([])
    })

    it('lists discoverable paid workflows in the Bazaar format', async () => {
      const r = await t.call('GET', '/v1/x402/discovery/resources', { key: null })
      expect(r.status).toBe(200)
      const item = r.body.items.find((i: { resource: string }) => i.resource.endsWith(`/v1/x402/workflows/${paid.id}`))
      expect(item).toMatchObject({
        type: 'http',
        x402Version: 1,
        accepts: [{ maxAmountRequired: PRICE, payTo: recipient }],
        metadata: { name: 'Quote', tags: ['markets'] },
      })
      expect(r.body.pagination.total).toBeGreaterThanOrEqual(1)
      expect((await t.call('GET', '/v1/x402/discovery/resources?type=mcp', { key: null })).body.items).toEqual([])
    })

    it("imports another organization's paid workflow in one step: probes, pays once from a wallet, records the endpoint", async () => {
      served = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => t.system.app.handle(request) })
      const base = `http://127.0.0.1:${served.port}`
      const buyer = await t.newOrganization(`x402-buyer-${kind}`)
      const wallet = (
        await t.call('POST', '/v1/wallets', {
          key: buyer.key,
          body: { name: 'buyer', privateKey: devnet.accounts[1].privateKey },
        })
      ).body.data
      const [buyerBefore, recipientBefore] = await Promise.all([balanceOf(wallet.address), balanceOf(recipient)])
      const resourceUrl = `${base}/v1/x402/workflows/${paid.id}`
      // Found in a Bazaar first (this installation's own discovery list): payable, not imported yet.
      const listed = await t.call('POST', '/v1/x402-endpoints/discover', {
        key: buyer.key,
        body: { url: `${base}/v1/x402/discovery/resources`, limit: 20 },
      })
      expect(listed.status).toBe(200)
      const found = listed.body.data.items.find((i: { resource: string }) => i.resource === resourceUrl)
      expect(found).toMatchObject({
        type: 'http',
        price: PRICE,
        network: 'anvil',
        payable: true,
        importedEndpointId: null,
      })
      const notBazaar = await t.call('POST', '/v1/x402-endpoints/discover', {
        key: buyer.key,
        body: { url: `${base}/healthz` },
      })
      expect(notBazaar.status).toBe(400)
      expect(notBazaar.body.message).toContain('Bazaar')
      expect(
        (await t.call('POST', '/v1/x402-endpoints/discover', { key: buyer.key, body: { url: 'ftp://x' } })).status,
      ).toBe(400)
      model.queue({
        steps: [
          textDelta(
            JSON.stringify({
              inputSummary: 'A ticker symbol',
              outputSummary: 'The run that quotes it',
              category: 'Markets',
              tags: ['Quotes', 'crypto'],
            }),
          ),
          finish('stop'),
          usageOnly(200, 30),
        ],
      })
      const imported = await t.call('POST', '/v1/x402-endpoints/import', {
        key: buyer.key,
        body: { resourceUrl, method: 'POST', body: { symbol: 'BTC' } },
      })
      expect(imported.status).toBe(200)
      const { endpoint, paymentDetails } = structuredClone(imported.body.data)
      expect(endpoint).toMatchObject({
        source: 'provider_bazaar',
        baseUrl: resourceUrl,
        method: 'POST',
        price: PRICE,
        maxAllowedPrice: String(BigInt(PRICE) * 5n),
        network: 'anvil',
        payTo: recipient,
        tokenAddress: devnet.token,
        totalCalls: 1,
        successCount: 1,
        spentByToken: { [devnet.token]: PRICE },
        defaultBody: { symbol: 'BTC' },
      })
      expect(endpoint.id).toMatch(/^x402_/)
      expect(endpoint).toMatchObject({
        inputSummary: 'A ticker symbol',
        outputSummary: 'The run that quotes it',
        category: 'markets',
        tags: ['quotes', 'crypto'],
      })
      expect(JSON.stringify(model.requests.at(-1))).toContain(resourceUrl)
      expect(endpoint.exampleOutput.data.action).toBe('triggered')
      expect(endpoint.name.length).toBeLessThanOrEqual(100)
      expect(paymentDetails).toMatchObject({
        amountPaid: PRICE,
        asset: devnet.token,
        network: 'anvil',
        payer: wallet.address,
      })
      expect(paymentDetails.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      // The token moved on chain by exactly the price, and the seller's run happened.
      expect(await balanceOf(wallet.address)).toBe(buyerBefore - BigInt(PRICE))
      expect(await balanceOf(recipient)).toBe(recipientBefore + BigInt(PRICE))
      await waitForRun(t, endpoint.exampleOutput.data.runIds[0])
      const relisted = await t.call('POST', '/v1/x402-endpoints/discover', {
        key: buyer.key,
        body: { url: `${base}/v1/x402/discovery/resources` },
      })
      expect(
        relisted.body.data.items.find((i: { resource: string }) => i.resource === resourceUrl).importedEndpointId,
      ).toBe(endpoint.id)

      // The same resource again: 409, and nothing paid.
      const again = await t.call('POST', '/v1/x402-endpoints/import', {
        key: buyer.key,
        body: { resourceUrl, method: 'POST', body: { symbol: 'BTC' } },
      })
      expect(again.status).toBe(409)
      expect(await balanceOf(wallet.address)).toBe(buyerBefore - BigInt(PRICE))
      // Not a paid resource, or one too dear to import: 400 naming why, nothing paid.
      const free = await t.call('POST', '/v1/x402-endpoints/import', {
        key: buyer.key,
        body: { resourceUrl: `${base}/healthz` },
      })
      expect(free.status).toBe(400)
      expect(free.body.message).toContain('not 402')
      const dear = await createLive(t, {
        x402Config: { chainId: devnet.chainId, price: '2000000', token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'dear' } } },
        },
      })
      const tooDear = await t.call('POST', '/v1/x402-endpoints/import', {
        key: buyer.key,
        body: { resourceUrl: `${base}/v1/x402/workflows/${dear.id}`, method: 'POST', body: {} },
      })
      expect(tooDear.status).toBe(400)
      expect(tooDear.body.message).toContain('AUTOMATON_X402_MAX_IMPORT_PRICE')
      expect(
        (
          await t.call('POST', '/v1/x402-endpoints/import', {
            key: buyer.key,
            body: { resourceUrl, walletAddress: '0x0000000000000000000000000000000000000001' },
          })
        ).status,
      ).toBe(400)
      expect(
        (
          await t.call('POST', '/v1/x402-endpoints/import', {
            key: buyer.key,
            body: { resourceUrl, name: 'x'.repeat(101) },
          })
        ).status,
      ).toBe(400)
      expect(await balanceOf(wallet.address)).toBe(buyerBefore - BigInt(PRICE))
      // The paid call waited for its run: the example output is what the seller's workflow produced.
      expect(endpoint.exampleOutput.data.run).toMatchObject({ status: 'success', output: { message: 'quote for BTC' } })

      // Without a method, the import probes GET, then POST (an Automaton seller answers GET with 404).
      const open = await createLive(t, {
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'open' } } },
        },
      })
      model.queue({ steps: [textDelta('{}'), finish('stop'), usageOnly(10, 2)] })
      const probedTwice = await t.call('POST', '/v1/x402-endpoints/import', {
        key: buyer.key,
        body: { resourceUrl: `${base}/v1/x402/workflows/${open.id}` },
      })
      expect(probedTwice.status).toBe(200)
      expect(probedTwice.body.data.endpoint.method).toBe('POST')
      expect(await balanceOf(wallet.address)).toBe(buyerBefore - 2n * BigInt(PRICE))

      // A workflow of the buyer calls the endpoint with the x402-request node: it pays the price once more.
      const buying = await createLive(
        t,
        {
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['buy'] },
              buy: {
                type: 'x402-request',
                payload: { endpointId: endpoint.id, body: { symbol: '{{$trigger.body.symbol}}' } },
              },
            },
          },
        },
        buyer.key,
      )
      const runBuying = async (symbol: string) => {
        const started = await t.call('POST', `/v1/workflows/${buying.id}/run`, {
          key: buyer.key,
          body: { payload: { symbol } },
        })
        expect(started.status).toBe(200)
        return waitForRun(t, started.body.data.runId, undefined, 20_000, buyer.key)
      }
      const bought = await runBuying('SOL')
      expect(bought.status).toBe('success')
      expect(structuredClone(bought.nodes.buy.result)).toMatchObject({
        status: 200,
        body: { data: { action: 'triggered' } },
        payment: { amount: PRICE, asset: devnet.token },
      })
      expect(bought.nodes.buy.result.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      const sellerRun = await waitForRun(t, bought.nodes.buy.result.body.data.runIds[0])
      expect(sellerRun.nodes.say.result.message).toBe('quote for SOL')
      expect(await balanceOf(wallet.address)).toBe(buyerBefore - 3n * BigInt(PRICE))
      const counted = (await t.call('GET', `/v1/x402-endpoints/${endpoint.id}`, { key: buyer.key })).body.data
      expect(counted).toMatchObject({
        totalCalls: 2,
        successCount: 2,
        spentByToken: { [devnet.token]: String(2n * BigInt(PRICE)) },
      })
      // A node executed again after a crash signs the same nonce (from its idempotency key): the
      // seller answers with the run it already paid for, and nothing moves twice.
      const first = await t.system.x402Endpoints.call(
        buyer.orgId,
        { endpointId: endpoint.id, body: { symbol: 'ADA' } },
        undefined,
        'run_crashed:buy:1',
      )
      const second = await t.system.x402Endpoints.call(
        buyer.orgId,
        { endpointId: endpoint.id, body: { symbol: 'ADA' } },
        undefined,
        'run_crashed:buy:1',
      )
      expect(first.payment?.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      expect(second.payment?.transaction).toBe(first.payment!.transaction)
      expect((second.body as { data: { runIds: string[] } }).data.runIds).toEqual(
        (first.body as { data: { runIds: string[] } }).data.runIds,
      )
      expect(await balanceOf(wallet.address)).toBe(buyerBefore - 4n * BigInt(PRICE))
      // Above the endpoint's maxAllowedPrice the node fails and pays nothing.
      expect(
        (
          await t.call('PUT', `/v1/x402-endpoints/${endpoint.id}`, {
            key: buyer.key,
            body: { maxAllowedPrice: '1000' },
          })
        ).status,
      ).toBe(200)
      const refused = await runBuying('DOGE')
      expect(refused.status).toBe('failure')
      expect(JSON.stringify(refused.nodes.buy.error)).toContain('maxAllowedPrice')
      expect(await balanceOf(wallet.address)).toBe(buyerBefore - 4n * BigInt(PRICE))
      expect((await t.call('GET', `/v1/x402-endpoints/${endpoint.id}`, { key: buyer.key })).body.data).toMatchObject({
        totalCalls: 5,
        failureCount: 1,
      })

      // The records.
      expect(
        (await t.call('GET', '/v1/x402-endpoints', { key: buyer.key })).body.data.items.map(
          (e: { id: string }) => e.id,
        ),
      ).toEqual([probedTwice.body.data.endpoint.id, endpoint.id])
      expect((await t.call('GET', `/v1/x402-endpoints/${endpoint.id}`)).status).toBe(404)
      const renamed = await t.call('PUT', `/v1/x402-endpoints/${endpoint.id}`, {
        key: buyer.key,
        body: { name: 'BTC quote', maxAllowedPrice: '30000' },
      })
      expect(renamed.body.data).toMatchObject({ name: 'BTC quote', maxAllowedPrice: '30000' })
      expect((await t.call('DELETE', `/v1/x402-endpoints/${endpoint.id}`, { key: buyer.key })).status).toBe(200)
      expect((await t.call('GET', `/v1/x402-endpoints/${endpoint.id}`, { key: buyer.key })).status).toBe(404)
    }, 60_000)

    it('asks for payment on the webhook as soon as a paid version is live, and starts nothing unpaid', async () => {
      const definition = {
        triggerNodeIds: ['root'],
        nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'soon paid' } } },
      }
      const free = await createLive(t, { definition })
      const before = await t.call('POST', `/v1/webhooks/${free.triggerSecret}`, {
        key: null,
        body: {},
        headers: { 'idempotency-key': 'order-1' },
      })
      expect(before.status).toBe(200)
      expect(before.body.data.action).toBe('triggered')
      const updated = await t.call('PUT', `/v1/workflows/${free.id}`, {
        body: {
          definition,
          x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: false },
        },
      })
      expect(updated.status).toBe(200)
      await publish(t, free.id)
      const unpaid = await t.call('POST', `/v1/webhooks/${free.triggerSecret}`, { key: null, body: {} })
      expect(unpaid.status).toBe(402)
      expect(unpaid.headers.get('payment-required')).toBeTruthy()
      // A key it used before tells an unpaid caller nothing: the answer is the same 402.
      const repeated = await t.call('POST', `/v1/webhooks/${free.triggerSecret}`, {
        key: null,
        body: {},
        headers: { 'idempotency-key': 'order-1' },
      })
      expect(repeated.status).toBe(402)
      // Nor is its public run free.
      expect(
        (await t.call('PUT', `/v1/workflows/${free.id}/visibility`, { body: { visibility: 'public_execute' } })).status,
      ).toBe(200)
      const publicRun = await t.call('POST', `/v1/public/workflows/${free.id}/run`, { key: null, body: {} })
      expect(publicRun.status).toBe(409)
      expect(publicRun.body.message).toContain('paid')
      const counts = (await t.call('GET', `/v1/runs/status-counts?workflowId=${free.id}`)).body.data.counts
      expect(Object.values(counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(1)
      // A key's run is the owner's and needs no payment.
      expect((await t.call('POST', `/v1/workflows/${free.id}/run`, { body: {} })).status).toBe(200)
    })

    it('needs both the webhook secret and a payment for a paid workflow that is not discoverable', async () => {
      const hidden = await createLive(t, {
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: false },
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hidden' } } },
        },
      })
      expect((await t.call('POST', `/v1/x402/workflows/${hidden.id}`, { key: null, body: {} })).status).toBe(404)
      const unpaid = await t.call('POST', `/v1/webhooks/${hidden.triggerSecret}`, { key: null, body: {} })
      expect(unpaid.status).toBe(402)
      const ok = await t.call('POST', `/v1/webhooks/${hidden.triggerSecret}`, {
        key: null,
        body: {},
        headers: { 'x-payment': v1(await sign()) },
      })
      expect(ok.status).toBe(200)
      expect(ok.body.data.action).toBe('triggered')
    })
  })
}
