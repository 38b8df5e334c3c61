/** The chain port over viem: one public client per configured chain, wallet clients per call. */
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  isAddress,
  keccak256,
  parseAbi,
  parseAbiItem,
  parseSignature,
  verifyTypedData,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type ChainConfig, type Chains, ContractArgumentsError } from '../../core/ports/chain.ts'

const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

const EIP3009_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
])

const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')
/** How far back the transaction that used an authorization is looked for. */
const RECENT_BLOCKS = 5_000n

export function createViemChains(configs: readonly ChainConfig[]): Chains {
  const byId = new Map(configs.map((c) => [c.chainId, c]))
  const chainOf = (c: ChainConfig) =>
    defineChain({
      id: c.chainId,
      name: c.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [c.rpcUrl] } },
    })
  const publics = new Map(
    configs.map((c) => [
      c.chainId,
      createPublicClient({ chain: chainOf(c), transport: http(c.rpcUrl), pollingInterval: 500 }),
    ]),
  )
  // One relayer's transactions are signed and broadcast one at a time, so each takes the next nonce.
  const relayerTurns = new Map<string, Promise<unknown>>()
  const relayerNonces = new Map<string, number>()
  const config = (chainId: number) => {
    const c = byId.get(chainId)
    if (!c) throw new Error(`chain ${chainId} is not configured (AUTOMATON_CHAINS)`)
    return c
  }
  const publicOf = (chainId: number) => {
    config(chainId)
    return publics.get(chainId)!
  }
  const address = (value: string) => {
    if (!isAddress(value)) throw new Error(`not an address: ${value}`)
    return value as Hex
  }
  return {
    list: () => configs,
    get: (chainId) => byId.get(chainId),
    addressOf: (privateKey) => privateKeyToAccount(privateKey as Hex).address,
    newPrivateKey: () => generatePrivateKey(),
    nativeBalance: (chainId, owner) => publicOf(chainId).getBalance({ address: address(owner) }),
    tokenBalance: (chainId, token, owner) =>
      publicOf(chainId).readContract({
        address: address(token),
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address(owner)],
      }),
    async deployContract(chainId, privateKey, contract) {
      const c = config(chainId)
      const account = privateKeyToAccount(privateKey as Hex)
      const wallet = createWalletClient({ account, chain: chainOf(c), transport: http(c.rpcUrl) })
      try {
        encodeDeployData({
          abi: contract.abi as Abi,
          bytecode: contract.bytecode as Hex,
          args: (contract.args ?? []) as never,
        })
      } catch (error) {
        throw new ContractArgumentsError((error as Error).message.split('\n')[0])
      }
      const hash = await wallet.deployContract({
        abi: contract.abi as Abi,
        bytecode: contract.bytecode as Hex,
        args: (contract.args ?? []) as never,
      })
      const receipt = await publicOf(chainId).waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success' || !receipt.contractAddress)
        throw new Error(`the deployment failed on chain ${chainId} (transaction ${hash})`)
      return { address: receipt.contractAddress, transactionHash: hash }
    },
    async transfer(chainId, privateKey, t) {
      const c = config(chainId)
      const wallet = createWalletClient({
        account: privateKeyToAccount(privateKey as Hex),
        chain: chainOf(c),
        transport: http(c.rpcUrl),
      })
      const hash =
        t.token === 'native'
          ? await wallet.sendTransaction({ to: address(t.to), value: t.amount, chain: chainOf(c) })
          : await wallet.writeContract({
              address: address(t.token),
              abi: erc20Abi,
              functionName: 'transfer',
              args: [address(t.to), t.amount],
              chain: chainOf(c),
            })
      const receipt = await publicOf(chainId).waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success')
        throw new Error(`the transfer reverted on chain ${chainId} (transaction ${hash})`)
      return hash
    },
    async code(chainId, at) {
      return (await publicOf(chainId).getCode({ address: address(at) })) ?? '0x'
    },
    async verifyAuthorization(chainId, token, a, signature) {
      try {
        return await verifyTypedData({
          address: address(a.from),
          domain: { name: token.name, version: token.version, chainId, verifyingContract: address(token.address) },
          types: TRANSFER_WITH_AUTHORIZATION,
          primaryType: 'TransferWithAuthorization',
          message: {
            from: address(a.from),
            to: address(a.to),
            value: BigInt(a.value),
            validAfter: BigInt(a.validAfter),
            validBefore: BigInt(a.validBefore),
            nonce: a.nonce as Hex,
          },
          signature: signature as Hex,
        })
      } catch {
        return false
      }
    },
    signAuthorization(chainId, privateKey, token, a) {
      return privateKeyToAccount(privateKey as Hex).signTypedData({
        domain: { name: token.name, version: token.version, chainId, verifyingContract: address(token.address) },
        types: TRANSFER_WITH_AUTHORIZATION,
        primaryType: 'TransferWithAuthorization',
        message: {
          from: address(a.from),
          to: address(a.to),
          value: BigInt(a.value),
          validAfter: BigInt(a.validAfter),
          validBefore: BigInt(a.validBefore),
          nonce: a.nonce as Hex,
        },
      })
    },
    async submitAuthorization(chainId, relayerKey, token, a, signature, beforeBroadcast) {
      const c = config(chainId)
      const account = privateKeyToAccount(relayerKey as Hex)
      const wallet = createWalletClient({ account, chain: chainOf(c), transport: http(c.rpcUrl) })
      const { r, s, v, yParity } = parseSignature(signature as Hex)
      const data = encodeFunctionData({
        abi: EIP3009_ABI,
        functionName: 'transferWithAuthorization',
        args: [
          address(a.from),
          address(a.to),
          BigInt(a.value),
          BigInt(a.validAfter),
          BigInt(a.validBefore),
          a.nonce as Hex,
          Number(v ?? BigInt(27 + (yParity ?? 0))),
          r,
          s,
        ],
      })
      // Gas and fees are estimated in parallel; only taking a nonce, signing and broadcasting take turns.
      const prepared = await wallet.prepareTransactionRequest({
        account,
        to: address(token),
        data,
        chain: chainOf(c),
        parameters: ['fees', 'gas', 'type', 'chainId'],
      })
      const key = `${chainId}:${account.address}`
      const turn = async () => {
        for (let attempt = 1; ; attempt++) {
          let nonce = relayerNonces.get(key)
          if (nonce === undefined)
            nonce = await publicOf(chainId).getTransactionCount({ address: account.address, blockTag: 'pending' })
          const raw = await account.signTransaction({ ...prepared, nonce } as Parameters<
            typeof account.signTransaction
          >[0])
          const hash = keccak256(raw)
          try {
            await beforeBroadcast(hash, raw)
            await publicOf(chainId).sendRawTransaction({ serializedTransaction: raw })
          } catch (error) {
            // What the node counts is the truth again after a failure; another process using the
            // same relayer took this nonce: sign again with the next (the hash stored is replaced).
            relayerNonces.delete(key)
            if (
              attempt < 3 &&
              /nonce too low|nonce has already been used|replacement transaction underpriced/i.test(
                (error as Error).message,
              )
            )
              continue
            throw error
          }
          relayerNonces.set(key, nonce + 1)
          return hash
        }
      }
      const result = (relayerTurns.get(key) ?? Promise.resolve()).catch(() => {}).then(turn)
      relayerTurns.set(key, result)
      try {
        return await result
      } finally {
        if (relayerTurns.get(key) === result) relayerTurns.delete(key)
      }
    },
    async broadcast(chainId, raw) {
      try {
        await publicOf(chainId).sendRawTransaction({ serializedTransaction: raw as Hex })
      } catch (error) {
        if (/already known|already imported|known transaction/i.test((error as Error).message)) return
        throw error
      }
    },
    async transactionOutcome(chainId, hash, timeoutMs) {
      const client = publicOf(chainId)
      try {
        const receipt =
          timeoutMs > 0
            ? await client.waitForTransactionReceipt({ hash: hash as Hex, timeout: timeoutMs })
            : await client.getTransactionReceipt({ hash: hash as Hex })
        return receipt.status === 'success' ? 'success' : 'reverted'
      } catch (error) {
        const name = (error as Error).name
        if (
          name === 'WaitForTransactionReceiptTimeoutError' ||
          name === 'TransactionReceiptNotFoundError' ||
          name === 'TransactionNotFoundError'
        )
          return 'pending'
        throw error
      }
    },
    async authorizationUse(chainId, token, authorizer, nonce) {
      const client = publicOf(chainId)
      const used = await client.readContract({
        address: address(token),
        abi: EIP3009_ABI,
        functionName: 'authorizationState',
        args: [address(authorizer), nonce as Hex],
      })
      if (!used) return null
      try {
        const latest = await client.getBlockNumber()
        const logs = await client.getLogs({
          address: address(token),
          event: AUTHORIZATION_USED,
          args: { authorizer: address(authorizer), nonce: nonce as Hex },
          fromBlock: latest > RECENT_BLOCKS ? latest - RECENT_BLOCKS : 0n,
          toBlock: latest,
        })
        return { transaction: logs[0]?.transactionHash ?? null }
      } catch {
        // Some RPCs limit log queries: that it was used is what counts.
        return { transaction: null }
      }
    },
  }
}
