import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'
import { Address, Amount, atLeast, ChainId, NativeTransfer, sameAddress, TAGS, TxHash } from '../schemas.ts'

const Config = Type.Object({ chainId: ChainId, address: Address, minAmount: Type.Optional(Amount) })
const Wait = Type.Object({
  transactionHash: Type.Optional(TxHash),
  from: Type.Optional(Address),
  to: Type.Optional(Address),
})

/** A wallet receives or sends the chain's native token: the same event, seen from `to` or from `from`. */
function nativeTransfer(direction: 'receive' | 'send') {
  const side = direction === 'receive' ? 'to' : 'from'
  return defineTrigger({
    type: `eth-${direction}`,
    name: direction === 'receive' ? 'ETH received' : 'ETH sent',
    description: `A wallet ${direction === 'receive' ? 'receives' : 'sends'} the native token of an EVM chain (ETH on Ethereum), at least an amount in wei.`,
    tags: [...TAGS, 'evm', 'native'],
    platform: 'evm',
    connector: null,
    payload: Config,
    result: TriggerEvent(NativeTransfer),
    waitPayload: Wait,
    matches: (config, { body }) =>
      body.chainId === config.chainId &&
      sameAddress(body[side], config.address) &&
      atLeast(body.value, config.minAmount),
  })
}

export const ethReceive = nativeTransfer('receive')
export const ethSend = nativeTransfer('send')
