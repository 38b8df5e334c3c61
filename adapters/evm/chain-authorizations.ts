/**
 * EIP-3009 authorizations (x402 payments): verifying and signing a TransferWithAuthorization,
 * submitting one from a relayer's key, and finding whether the token has used one.
 */
import { encodeFunctionData, type Hex, keccak256, parseAbi, parseAbiItem, parseSignature, verifyTypedData } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Chains } from '../../core/ports/chain.ts'
import { address, type ChainClients } from './chain-clients.ts'

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

type Authorization = Parameters<Chains['signAuthorization']>[3]
type Token = Parameters<Chains['signAuthorization']>[2]

/** The EIP-712 typed data of an authorization, for the token's domain. */
const typedData = (chainId: number, token: Token, a: Authorization) => ({
  domain: { name: token.name, version: token.version, chainId, verifyingContract: address(token.address) },
  types: TRANSFER_WITH_AUTHORIZATION,
  primaryType: 'TransferWithAuthorization' as const,
  message: {
    from: address(a.from),
    to: address(a.to),
    value: BigInt(a.value),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    nonce: a.nonce as Hex,
  },
})

export function chainAuthorizations(
  clients: ChainClients,
): Pick<Chains, 'verifyAuthorization' | 'signAuthorization' | 'submitAuthorization' | 'authorizationUse'> {
  const submitAuthorization = relayerSubmission(clients)
  return {
    async verifyAuthorization(chainId, token, a, signature) {
      try {
        return await verifyTypedData({
          address: address(a.from),
          ...typedData(chainId, token, a),
          signature: signature as Hex,
        })
      } catch {
        return false
      }
    },
    signAuthorization(chainId, privateKey, token, a) {
      return privateKeyToAccount(privateKey as Hex).signTypedData(typedData(chainId, token, a))
    },
    submitAuthorization,
    authorizationUse: (chainId, token, authorizer, nonce) =>
      authorizationUse(clients, chainId, token, authorizer, nonce),
  }
}

/** Submits authorizations from relayers' keys; one relayer's transactions take turns for their nonces. */
function relayerSubmission({ publicOf, walletOf }: ChainClients): Chains['submitAuthorization'] {
  // One relayer's transactions are signed and broadcast one at a time, so each takes the next nonce.
  const relayerTurns = new Map<string, Promise<unknown>>()
  const relayerNonces = new Map<string, number>()
  return async (chainId, relayerKey, token, a, signature, beforeBroadcast) => {
    const { account, chain, wallet } = walletOf(chainId, relayerKey)
    const data = transferWithAuthorizationData(a, signature)
    // Gas and fees are estimated in parallel; only taking a nonce, signing and broadcasting take turns.
    const prepared = await wallet.prepareTransactionRequest({
      account,
      to: address(token),
      data,
      chain,
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
  }
}

/** The call data of `transferWithAuthorization` with the signature's v, r and s. */
function transferWithAuthorizationData(a: Authorization, signature: string): Hex {
  const { r, s, v, yParity } = parseSignature(signature as Hex)
  return encodeFunctionData({
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
}

async function authorizationUse(
  { publicOf }: ChainClients,
  chainId: number,
  token: string,
  authorizer: string,
  nonce: string,
): Promise<{ transaction: string | null } | null> {
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
}
