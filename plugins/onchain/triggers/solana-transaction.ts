import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'
import { Amount, SolanaAddress, TAGS } from '../schemas.ts'

const Transfer = Type.Object({ from: SolanaAddress, to: SolanaAddress, lamports: Amount })
const TokenTransfer = Type.Object({ mint: SolanaAddress, from: SolanaAddress, to: SolanaAddress, amount: Amount })

/** A Solana transaction touches an address (optionally through a program, receiving at least an amount). */
export const solanaTransaction = defineTrigger({
  type: 'solana-transaction',
  name: 'Solana transaction',
  description:
    'A Solana transaction involves an address; optionally through a given program, or bringing it at least an amount of lamports.',
  tags: [...TAGS, 'solana'],
  platform: 'solana',
  connector: null,
  payload: Type.Object({
    address: SolanaAddress,
    programId: Type.Optional(SolanaAddress),
    minLamports: Type.Optional(Amount),
    includeFailed: Type.Optional(Type.Boolean({ default: false })),
  }),
  result: TriggerEvent(
    Type.Object({
      signature: Type.String({ minLength: 64, maxLength: 100 }),
      slot: Type.Integer({ minimum: 0 }),
      blockTime: Type.Integer({ description: 'Unix seconds' }),
      success: Type.Boolean(),
      fee: Amount,
      accounts: Type.Array(SolanaAddress),
      programIds: Type.Array(SolanaAddress),
      nativeTransfers: Type.Array(Transfer),
      tokenTransfers: Type.Optional(Type.Array(TokenTransfer)),
    }),
  ),
  waitPayload: Type.Object({ signature: Type.Optional(Type.String()) }),
  matches(config, { body }) {
    if (!body.success && !config.includeFailed) return false
    if (!body.accounts.includes(config.address)) return false
    if (config.programId && !body.programIds.includes(config.programId)) return false
    if (config.minLamports === undefined) return true
    const received = body.nativeTransfers
      .filter((t) => t.to === config.address)
      .reduce((sum, t) => sum + BigInt(t.lamports), 0n)
    return received >= BigInt(config.minLamports)
  },
})
