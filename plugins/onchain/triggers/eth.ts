import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'
import { Address, Amount, atLeast, ChainId, NativeTransfer, sameAddress, TAGS, TxHash } from '../schemas.ts'

const Config = Type.Object({ chainId: ChainId, address: Address, minAmount: Type.Optional(Amount) })
const Wait = Type.Object({ transactionHash: Type.Optional(TxHash), from: Type.Optional(Address), to: Type.Optional(Address) })

/** A wallet receives the chain's native token. */
export const ethReceive = defineTrigger({
  type: 'eth-receive',
  name: 'ETH received',
  description: 'A wallet receives the native token of an EVM chain (ETH on Ethereum), at least an amount in wei.',
  tags: [...TAGS, 'evm', 'native'],
  platform: 'evm',
  connector: null,
  payload: Config,
  result: TriggerEvent(NativeTransfer),
  waitPayload: Wait,
  matches: (config, { body }) => body.chainId === config.chainId && sameAddress(body.to, config.address) && atLeast(body.value, config.minAmount),
})

/** A wallet sends the chain's native token. */
export const ethSend = defineTrigger({
  type: 'eth-send',
  name: 'ETH sent',
  description: 'A wallet sends the native token of an EVM chain (ETH on Ethereum), at least an amount in wei.',
  tags: [...TAGS, 'evm', 'native'],
  platform: 'evm',
  connector: null,
  payload: Config,
  result: TriggerEvent(NativeTransfer),
  waitPayload: Wait,
  matches: (config, { body }) => body.chainId === config.chainId && sameAddress(body.from, config.address) && atLeast(body.value, config.minAmount),
})
