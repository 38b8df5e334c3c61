import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'
import { Address, ChainId, sameAddress, TAGS, Topic, TxHash } from '../schemas.ts'

/** A contract emitted a log: filtered by chain, contract address and positional topics. */
export const evmLog = defineTrigger({
  type: 'evm-log',
  name: 'EVM log',
  description:
    'A contract emits an event log on an EVM chain; filter by contract address and topics (topic 0 is the event signature hash).',
  tags: [...TAGS, 'evm'],
  platform: 'evm',
  connector: null,
  payload: Type.Object({
    chainId: ChainId,
    address: Address,
    topics: Type.Optional(
      Type.Array(Type.Union([Topic, Type.Null()]), {
        maxItems: 4,
        description: 'per position: the topic, or null for any',
      }),
    ),
    eventSignature: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'e.g. Transfer(address,address,uint256); for people, not for matching',
      }),
    ),
  }),
  result: TriggerEvent(
    Type.Object({
      chainId: ChainId,
      address: Address,
      topics: Type.Array(Topic, { maxItems: 4 }),
      data: Type.String({ pattern: '^0x[0-9a-fA-F]*$' }),
      blockNumber: Type.Integer({ minimum: 0 }),
      blockHash: Type.Optional(Type.String()),
      transactionHash: TxHash,
      logIndex: Type.Integer({ minimum: 0 }),
      decoded: Type.Optional(
        Type.Record(Type.String(), Type.Any(), { description: 'the arguments, when the event source knows the ABI' }),
      ),
    }),
  ),
  waitPayload: Type.Object({ transactionHash: Type.Optional(TxHash), address: Type.Optional(Address) }),
  matches: (config, { body }) =>
    body.chainId === config.chainId &&
    sameAddress(body.address, config.address) &&
    (config.topics ?? []).every((topic, i) => topic === null || sameAddress(body.topics[i], topic)),
})
