/** Generic on-chain triggers: EVM logs, ERC-20 and native transfers, Solana transactions. Events come from an event source. */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { erc20Receive, erc20Send } from './triggers/erc20.ts'
import { ethReceive, ethSend } from './triggers/eth.ts'
import { evmLog } from './triggers/evm-log.ts'
import { solanaTransaction } from './triggers/solana-transaction.ts'

export default definePlugin({
  id: 'onchain',
  name: 'On-chain',
  version: '1.0.0',
  description: 'Triggers on EVM and Solana activity, fed by the event-source integration.',
  triggers: [evmLog, erc20Receive, erc20Send, ethReceive, ethSend, solanaTransaction],
})
