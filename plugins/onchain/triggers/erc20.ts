import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'
import { Address, Amount, atLeast, ChainId, Erc20Transfer, sameAddress, TAGS, TxHash } from '../schemas.ts'

const Config = Type.Object({
  chainId: ChainId,
  address: Address,
  tokenAddress: Type.Optional(Address),
  minAmount: Type.Optional(Amount),
})
const Wait = Type.Object({ transactionHash: Type.Optional(TxHash), tokenAddress: Type.Optional(Address), from: Type.Optional(Address), to: Type.Optional(Address) })

/** A wallet receives an ERC-20 token. */
export const erc20Receive = defineTrigger({
  type: 'erc20-receive',
  name: 'ERC-20 received',
  description: 'A wallet receives an ERC-20 token (optionally one token, at least an amount).',
  tags: [...TAGS, 'evm', 'erc20'],
  platform: 'evm',
  connector: null,
  payload: Config,
  result: TriggerEvent(Erc20Transfer),
  waitPayload: Wait,
  matches: (config, { body }) =>
    body.chainId === config.chainId && sameAddress(body.to, config.address) &&
    (config.tokenAddress === undefined || sameAddress(body.tokenAddress, config.tokenAddress)) && atLeast(body.amount, config.minAmount),
})

/** A wallet sends an ERC-20 token. */
export const erc20Send = defineTrigger({
  type: 'erc20-send',
  name: 'ERC-20 sent',
  description: 'A wallet sends an ERC-20 token (optionally one token, at least an amount).',
  tags: [...TAGS, 'evm', 'erc20'],
  platform: 'evm',
  connector: null,
  payload: Config,
  result: TriggerEvent(Erc20Transfer),
  waitPayload: Wait,
  matches: (config, { body }) =>
    body.chainId === config.chainId && sameAddress(body.from, config.address) &&
    (config.tokenAddress === undefined || sameAddress(body.tokenAddress, config.tokenAddress)) && atLeast(body.amount, config.minAmount),
})
