import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'
import { Address, Amount, atLeast, ChainId, Erc20Transfer, sameAddress, TAGS, TxHash } from '../schemas.ts'

const Config = Type.Object({
  chainId: ChainId,
  address: Address,
  tokenAddress: Type.Optional(Address),
  minAmount: Type.Optional(Amount),
})
const Wait = Type.Object({
  transactionHash: Type.Optional(TxHash),
  tokenAddress: Type.Optional(Address),
  from: Type.Optional(Address),
  to: Type.Optional(Address),
})

/** A wallet receives or sends an ERC-20 token: the same event, seen from `to` or from `from`. */
function erc20Transfer(direction: 'receive' | 'send') {
  const side = direction === 'receive' ? 'to' : 'from'
  const verb = direction === 'receive' ? 'receives' : 'sends'
  return defineTrigger({
    type: `erc20-${direction}`,
    name: direction === 'receive' ? 'ERC-20 received' : 'ERC-20 sent',
    description: `A wallet ${verb} an ERC-20 token (optionally one token, at least an amount).`,
    tags: [...TAGS, 'evm', 'erc20'],
    platform: 'evm',
    connector: null,
    payload: Config,
    result: TriggerEvent(Erc20Transfer),
    waitPayload: Wait,
    matches: (config, { body }) =>
      body.chainId === config.chainId &&
      sameAddress(body[side], config.address) &&
      (config.tokenAddress === undefined || sameAddress(body.tokenAddress, config.tokenAddress)) &&
      atLeast(body.amount, config.minAmount),
  })
}

export const erc20Receive = erc20Transfer('receive')
export const erc20Send = erc20Transfer('send')
