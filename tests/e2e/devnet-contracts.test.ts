/**
 * On a real local chain (anvil, the devnet of `automaton devnet`): wallets generated and
 * imported (keys sealed, never answered), balances read from the chain, and a contract the
 * contract chat wrote and compiled deployed from a wallet, its code on chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSolcCompiler } from '../../adapters/solc/compiler.ts'
import type { Devnet } from '../../adapters/evm/devnet.ts'
import { finish, startScriptedOpenAi, type ScriptedOpenAi, toolFragment, usageOnly } from '../helpers/openai-server.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { storeKinds } from '../helpers/services.ts'
import { aiCredits } from '../../core/store/ai-credits.ts'
import { chainsOf, startTestDevnet } from '../helpers/x402.ts'

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
    uint256 public count;
    constructor(uint256 start) { count = start; }
    function bump() external { count += 1; }
}`

function toolTurn(name: string, args: unknown) {
  return {
    steps: [
      toolFragment(0, { id: `call_${name}`, name, arguments: JSON.stringify(args) }),
      finish('tool_calls'),
      usageOnly(500, 200),
    ],
  }
}

for (const kind of storeKinds())
  describe(`wallets and contract deployment on the devnet (${kind})`, () => {
    let devnet: Devnet
    let t: TestSystem
    let model: ScriptedOpenAi
    const compiler = createSolcCompiler()

    beforeAll(async () => {
      devnet = await startTestDevnet(compiler)
      model = startScriptedOpenAi()
      t = await openTestSystem(kind, {
        AUTOMATON_CHAINS: chainsOf(devnet),
        AUTOMATON_AI_BASE_URL: model.url,
        AUTOMATON_AI_MODEL: 'scripted',
      })
    }, 60_000)
    afterAll(async () => {
      await t?.close()
      await model?.stop()
      await devnet?.stop()
      await compiler.close()
    })

    it('keeps wallet keys sealed, reads balances from the chain, and makes the first wallet the default', async () => {
      const funded = devnet.accounts[1]
      const imported = await t.call('POST', '/v1/wallets', { body: { name: 'funded', privateKey: funded.privateKey } })
      expect(imported.status).toBe(200)
      expect(imported.body.data).toMatchObject({ name: 'funded', address: funded.address, isDefault: true })
      expect(JSON.stringify(imported.body)).not.toContain(funded.privateKey.slice(2))
      expect(
        (await t.call('POST', '/v1/wallets', { body: { name: 'again', privateKey: funded.privateKey } })).status,
      ).toBe(409)
      expect((await t.call('POST', '/v1/wallets', { body: { name: 'bad', privateKey: '0x1234' } })).status).toBe(400)
      const fresh = (await t.call('POST', '/v1/wallets', { body: { name: 'fresh' } })).body.data
      expect(fresh.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
      expect(fresh.isDefault).toBe(false)
      const stored = await t.system.store.all<{ sealed_key: string }>('SELECT sealed_key FROM wallets')
      for (const row of stored) expect(row.sealed_key).not.toContain(funded.privateKey.slice(2))

      const read = await t.call('GET', `/v1/wallets/${imported.body.data.id}?tokens=${devnet.token}`)
      expect(read.body.data.balances).toEqual([
        {
          chainId: devnet.chainId,
          network: 'anvil',
          native: expect.stringMatching(/^\d{19,}$/),
          tokens: [{ token: devnet.token, balance: '1000000000' }],
          error: '',
        },
      ])
      expect((await t.call('GET', `/v1/wallets/${fresh.id}`)).body.data.balances[0].native).toBe('0')
      expect((await t.call('GET', `/v1/wallets/${fresh.id}?tokens=nope`)).status).toBe(400)

      expect((await t.call('POST', `/v1/wallets/${fresh.id}/default`)).body.data.isDefault).toBe(true)
      expect((await t.call('GET', `/v1/wallets/${imported.body.data.id}`)).body.data.isDefault).toBe(false)
      const other = await t.newOrganization(`wallets-other-${kind}`)
      expect((await t.call('GET', `/v1/wallets/${fresh.id}`, { key: other.key })).status).toBe(404)
      const reader = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data.key
      expect((await t.call('GET', '/v1/wallets', { key: reader })).status).toBe(200)
      expect((await t.call('POST', '/v1/wallets', { key: reader, body: { name: 'x' } })).status).toBe(403)
      // Deleting the default passes it to the oldest wallet left.
      expect((await t.call('DELETE', `/v1/wallets/${fresh.id}`)).status).toBe(200)
      expect((await t.call('GET', `/v1/wallets/${imported.body.data.id}`)).body.data.isDefault).toBe(true)
    })

    it('sends tokens and gas from a wallet under wallet:withdraw, and refuses what it cannot pay', async () => {
      const from = (await t.call('GET', '/v1/wallets')).body.data.items.find(
        (w: { address: string }) => w.address === devnet.accounts[1].address,
      )
      const to = (await t.call('POST', '/v1/wallets', { body: { name: 'receiver' } })).body.data
      const token = await t.call('POST', `/v1/wallets/${from.id}/transfer`, {
        body: { chainId: devnet.chainId, token: devnet.token, to: to.address, amount: '2500000' },
      })
      expect(token.status).toBe(200)
      expect(token.body.data.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)
      const gas = await t.call('POST', `/v1/wallets/${from.id}/transfer`, {
        body: { chainId: devnet.chainId, token: 'native', to: to.address, amount: '1000000000000000000' },
      })
      expect(gas.status).toBe(200)
      const received = (await t.call('GET', `/v1/wallets/${to.id}?tokens=${devnet.token}`)).body.data.balances[0]
      expect(received).toMatchObject({
        native: '1000000000000000000',
        tokens: [{ token: devnet.token, balance: '2500000' }],
      })
      // More than it holds, a bad address, a chain not configured, another key's permissions.
      const tooMuch = await t.call('POST', `/v1/wallets/${to.id}/transfer`, {
        body: { chainId: devnet.chainId, token: devnet.token, to: from.address, amount: '2500001' },
      })
      expect(tooMuch.status).toBe(400)
      expect(tooMuch.body.details[0].path).toBe('/amount')
      expect(
        (await t.call('GET', `/v1/wallets/${to.id}?tokens=${devnet.token}`)).body.data.balances[0].tokens[0].balance,
      ).toBe('2500000')
      const bad = await t.call('POST', `/v1/wallets/${from.id}/transfer`, {
        body: { chainId: devnet.chainId, token: 'gold', to: 'nowhere', amount: '-1' },
      })
      expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(['/token', '/to', '/amount'])
      expect(
        (
          await t.call('POST', `/v1/wallets/${from.id}/transfer`, {
            body: { chainId: 999, token: 'native', to: to.address, amount: '1' },
          })
        ).status,
      ).toBe(400)
      const account = await t.call('POST', '/v1/service-accounts', {
        body: { name: 'wallet-keeper', permissions: ['wallet:read', 'wallet:write'] },
      })
      const writer = (
        await t.call('POST', '/v1/api-keys', { body: { name: 'writer', serviceAccountId: account.body.data.id } })
      ).body.data.key
      expect((await t.call('GET', `/v1/wallets/${from.id}`, { key: writer })).status).toBe(200)
      expect(
        (
          await t.call('POST', `/v1/wallets/${from.id}/transfer`, {
            key: writer,
            body: { chainId: devnet.chainId, token: 'native', to: to.address, amount: '1' },
          })
        ).status,
      ).toBe(403)
      expect(
        (
          await t.call('POST', '/v1/wallets/wal_nope/transfer', {
            body: { chainId: devnet.chainId, token: 'native', to: to.address, amount: '1' },
          })
        ).status,
      ).toBe(404)
    })

    it('deploys a contract the chat compiled, from the default wallet, and its code is on chain', async () => {
      await t.system.store.write((tx) =>
        aiCredits.grant(tx, { id: `job_devnet_grant_${kind}`, organizationId: t.orgId, amount: 100, at: Date.now() }),
      )
      model.queue(
        toolTurn('propose_plan', { name: 'Counter', steps: ['Store a count from the constructor', 'bump() adds one'] }),
      )
      const planned = await t.call('POST', '/v1/contract/chat/stream', {
        body: { message: 'A counter that starts where I say' },
      })
      const contractId = /"contractId":"(ctr_[^"]+)"/.exec(planned.body)![1]
      expect(
        (await t.call('POST', `/v1/contracts/${contractId}/deploy`, { body: { chainId: devnet.chainId } })).status,
      ).toBe(409)
      model.queue(toolTurn('write_contract', { source: COUNTER }))
      const compiled = await t.call('POST', '/v1/contract/chat/stream', {
        body: { message: '', contractId, action: 'approve_plan' },
      })
      expect(compiled.body).toContain('event: compiled')

      expect((await t.call('POST', `/v1/contracts/${contractId}/deploy`, { body: { chainId: 999 } })).status).toBe(400)
      const wrongArgs = await t.call('POST', `/v1/contracts/${contractId}/deploy`, {
        body: { chainId: devnet.chainId, constructorArgs: ['not a number'] },
      })
      expect(wrongArgs.status).toBe(400)
      const deployed = await t.call('POST', `/v1/contracts/${contractId}/deploy`, {
        body: { chainId: devnet.chainId, constructorArgs: ['41'] },
      })
      expect(deployed.status).toBe(200)
      const deployment = structuredClone(deployed.body.data)
      expect(deployment.contractId).toBe(contractId)
      expect(deployment.chainId).toBe(devnet.chainId)
      expect(deployment.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
      expect(deployment.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)

      const code = await t.system.chains.code(devnet.chainId, deployment.address)
      expect(code.length).toBeGreaterThan(10)
      const record = (await t.call('GET', `/v1/contracts/${contractId}`)).body.data
      expect(record.deployments).toEqual([deployment])
      // Another organization can neither deploy it nor see it.
      const other = await t.newOrganization(`contracts-other-${kind}`)
      expect(
        (
          await t.call('POST', `/v1/contracts/${contractId}/deploy`, {
            key: other.key,
            body: { chainId: devnet.chainId },
          })
        ).status,
      ).toBe(404)
    }, 60_000)
  })
