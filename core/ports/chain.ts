/**
 * EVM chains as a port (the viem adapter does the work): chains are operator configuration
 * (`AUTOMATON_CHAINS`), keys are the organization's sealed wallets, opened only for the call.
 */
export interface ChainConfig {
  chainId: number
  name: string
  rpcUrl: string
  /** The x402 network name (`base-sepolia`, `anvil` …); the CAIP-2 id is `eip155:<chainId>`. */
  network: string
}

export interface Chains {
  list(): readonly ChainConfig[]
  get(chainId: number): ChainConfig | undefined
  /** The address of a private key (0x-prefixed, 32 bytes hex). */
  addressOf(privateKey: string): string
  newPrivateKey(): string
  nativeBalance(chainId: number, address: string): Promise<bigint>
  tokenBalance(chainId: number, token: string, address: string): Promise<bigint>
  /** Deploys creation bytecode (with ABI-encoded constructor arguments) and waits for the receipt. */
  deployContract(
    chainId: number,
    privateKey: string,
    contract: { abi: readonly unknown[]; bytecode: string; args?: readonly unknown[] },
  ): Promise<{ address: string; transactionHash: string }>
  /**
   * Sends `amount` (smallest unit) of the native token (`token` = `native`) or an ERC-20 from a
   * key to an address and waits for the receipt: the transaction hash.
   */
  transfer(
    chainId: number,
    privateKey: string,
    transfer: { token: string; to: string; amount: bigint },
  ): Promise<string>
  /** The runtime code at an address (`0x` when none). */
  code(chainId: number, address: string): Promise<string>
  /** Whether `signature` is `authorization`'s EIP-712 TransferWithAuthorization signature by its `from`, for the token's domain. */
  verifyAuthorization(
    chainId: number,
    token: { address: string; name: string; version: string },
    authorization: {
      from: string
      to: string
      value: string
      validAfter: string
      validBefore: string
      nonce: string
    },
    signature: string,
  ): Promise<boolean>
  /** Signs an EIP-3009 TransferWithAuthorization with a wallet's key, for the token's domain. */
  signAuthorization(
    chainId: number,
    privateKey: string,
    token: { address: string; name: string; version: string },
    authorization: {
      from: string
      to: string
      value: string
      validAfter: string
      validBefore: string
      nonce: string
    },
  ): Promise<string>
  /**
   * Submits the authorization from the relayer's key: the transaction is signed first and
   * `beforeBroadcast` stores its hash and raw form, so a process that dies after the broadcast
   * still knows what it sent. Answers the transaction hash once broadcast (not mined).
   */
  submitAuthorization(
    chainId: number,
    relayerKey: string,
    token: string,
    authorization: {
      from: string
      to: string
      value: string
      validAfter: string
      validBefore: string
      nonce: string
    },
    signature: string,
    beforeBroadcast: (hash: string, raw: string) => Promise<void>,
  ): Promise<string>
  /** Broadcasts a signed transaction again (one the node has already is not an error). */
  broadcast(chainId: number, raw: string): Promise<void>
  /** A transaction's outcome, waiting up to `timeoutMs` for it to be mined: `pending` when it was not (or is unknown). */
  transactionOutcome(chainId: number, hash: string, timeoutMs: number): Promise<'success' | 'reverted' | 'pending'>
  /**
   * Whether the token has used the authorizer's EIP-3009 nonce (`authorizationState`): null when
   * not, else the transaction that used it when its `AuthorizationUsed` event is among the recent
   * blocks (null `transaction` past that).
   */
  authorizationUse(
    chainId: number,
    token: string,
    authorizer: string,
    nonce: string,
  ): Promise<{ transaction: string | null } | null>
}

/** The constructor arguments do not fit the contract's ABI (nothing was sent). */
export class ContractArgumentsError extends Error {
  override name = 'ContractArgumentsError'
}

/** Parses AUTOMATON_CHAINS: a JSON array of `{ chainId, name, rpcUrl, network }`. */
export function parseChains(raw: string): ChainConfig[] {
  if (!raw.trim()) return []
  let list: unknown
  try {
    list = JSON.parse(raw)
  } catch {
    throw new Error('AUTOMATON_CHAINS must be a JSON array of { chainId, name, rpcUrl, network }')
  }
  if (!Array.isArray(list))
    throw new Error('AUTOMATON_CHAINS must be a JSON array of { chainId, name, rpcUrl, network }')
  const seen = new Set<number>()
  return list.map((c, i) => {
    const e = c as Record<string, unknown>
    if (!Number.isSafeInteger(e?.chainId) || (e.chainId as number) <= 0)
      throw new Error(`AUTOMATON_CHAINS[${i}].chainId must be a positive integer`)
    if (typeof e.rpcUrl !== 'string' || !/^https?:\/\//.test(e.rpcUrl))
      throw new Error(`AUTOMATON_CHAINS[${i}].rpcUrl must be an http(s) URL`)
    if (seen.has(e.chainId as number)) throw new Error(`AUTOMATON_CHAINS lists chain ${e.chainId} twice`)
    seen.add(e.chainId as number)
    return {
      chainId: e.chainId as number,
      name: typeof e.name === 'string' ? e.name : `chain ${e.chainId}`,
      rpcUrl: e.rpcUrl,
      network: typeof e.network === 'string' ? e.network : `eip155-${e.chainId}`,
    }
  })
}
