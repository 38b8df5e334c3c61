/**
 * The smart-contract chat: a person describes a contract; the model proposes a numbered plan,
 * which the person approves (`approve_plan`) or rejects with feedback (`reject_plan`); on approval
 * the model writes Solidity, which is compiled (with one automatic repair turn on a compile
 * error). The project, its plan, source, ABI and bytecode are kept as a contract record, the
 * conversation as chat messages.
 *
 * Events: `contract` { contractId } (first message only), `message.delta` { text }, `plan`
 * { name, steps }, `code.delta` { text }, `compiled` { name, abi, bytecode, warnings },
 * `compile_error` { errors }, `error` { message }, `done` { contractId, messageId, status }.
 *
 * This file holds the contract and the checks before a turn; the turn (contract-chat-turn.ts),
 * the model's tools (contract-chat-tools.ts) and writing (contract-chat-writing.ts) live beside it.
 */
import { badRequest, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { SolidityCompiler } from '../ports/compiler.ts'
import type { Ids } from '../ports/ids.ts'
import type { Store } from '../ports/store.ts'
import { aiCredits } from '../store/ai-credits.ts'
import { chatMessages, type ContractRow, contracts } from '../store/chat-messages.ts'
import { deployments } from '../store/wallets.ts'
import { iso } from '../time.ts'
import { type AiService, CreditsExhaustedError } from './ai.ts'
import type { Principal } from './auth.ts'
import { type ChatMessage, type Emit, toChatMessage } from './chat-transcript.ts'
import { newContract, runContractTurn } from './contract-chat-turn.ts'
import { guarded, type OperationTable } from './operations.ts'
import { type Deployment, toDeployment } from './wallet-records.ts'

export { CONTRACT_AGENT_VERSION } from './contract-chat-turn.ts'
export const MAX_CONTRACT_MESSAGE = 51_200

export interface ContractChatDeps {
  store: Store
  clock: Clock
  ids: Ids
  ai: AiService
  compiler: SolidityCompiler
}

/** A message to the contract chat: a new contract (no `contractId`), or an answer to a pending plan. */
export interface ContractChatBody {
  message: string
  contractId?: string
  action?: 'approve_plan' | 'reject_plan'
}

/** A contract record: its plan, and once written its source, ABI and bytecode (empty until then). */
export interface Contract {
  id: string
  organizationId: string
  name: string
  /** `drafting`, `plan_pending`, `writing`, `compiled` or `compile_failed`. */
  status: string
  plan: { name: string; steps: string[] } | null
  source: string
  abi: unknown[]
  bytecode: string
  compileError: string
  createdBy: string
  createdAt: string
  updatedAt: string
}

/** The contract chat of an organization: its turns, and the contracts they made. */
export interface ContractChat {
  /**
   * Checks what can be checked before a stream starts (400, 402, 503); the returned function
   * runs the turn, emitting its events.
   */
  prepare(caller: Principal, body: ContractChatBody): Promise<(emit: Emit, signal: AbortSignal) => Promise<void>>
  list(
    caller: Principal,
    page: { limit: number; offset: number },
  ): Promise<{ hasMore: boolean; items: Contract[]; limit: number; offset: number }>
  /** A contract with its conversation (the latest 100 messages) and its deployments. */
  get(caller: Principal, id: string): Promise<Contract & { messages: ChatMessage[]; deployments: Deployment[] }>
}

const OPERATIONS: OperationTable<ContractChat> = {
  prepare: ['ai:chat'],
  list: ['ai:chat'],
  get: ['ai:chat'],
}

function toContract(r: ContractRow): Contract {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    status: r.status,
    plan: r.plan ? (JSON.parse(r.plan) as { name: string; steps: string[] }) : null,
    source: r.source ?? '',
    abi: r.abi ? (JSON.parse(r.abi) as unknown[]) : [],
    bytecode: r.bytecode ?? '',
    compileError: r.compile_error ?? '',
    createdBy: r.created_by,
    createdAt: iso(Number(r.created_at)),
    updatedAt: iso(Number(r.updated_at)),
  }
}

export function createContractChat(deps: ContractChatDeps): ContractChat {
  const { store } = deps
  return guarded<ContractChat>('contractChat', OPERATIONS, {
    prepare: async (caller, body) => prepareTurn(deps, caller, body),

    async list(caller, page) {
      const rows = await contracts.list(store, caller.organizationId, page.limit + 1, page.offset)
      return {
        hasMore: rows.length > page.limit,
        items: rows.slice(0, page.limit).map(toContract),
        limit: page.limit,
        offset: page.offset,
      }
    },

    async get(caller, id) {
      const row = await contracts.byId(store, caller.organizationId, id)
      if (!row) throw notFound('contract')
      const messages = (
        await chatMessages.page(store, caller.organizationId, { column: 'conversation_id', value: id }, 'contract', 100)
      )
        .reverse()
        .map(toChatMessage)
      return {
        ...toContract(row),
        messages,
        deployments: (await deployments.ofContract(store, caller.organizationId, id)).map(toDeployment),
      }
    },
  })
}

/** The checks before a turn; the turn itself, creating the contract on the first message. */
async function prepareTurn(deps: ContractChatDeps, caller: Principal, body: ContractChatBody) {
  const { store, ids } = deps
  deps.ai.requireConfigured()
  if (body.message.length > MAX_CONTRACT_MESSAGE)
    throw badRequest(`message must be at most ${MAX_CONTRACT_MESSAGE} characters`, [
      { path: '/message', message: 'too long' },
    ])
  let contract: ContractRow | undefined
  if (body.contractId) {
    contract = await contracts.byId(store, caller.organizationId, body.contractId)
    if (!contract)
      throw badRequest('no such contract in this organization', [{ path: '/contractId', message: 'unknown contract' }])
  }
  if (body.action && contract?.status !== 'plan_pending') {
    throw badRequest(`${body.action} needs a plan waiting for approval`, [
      { path: '/action', message: 'no pending plan' },
    ])
  }
  if (!body.action && !body.message.trim())
    throw badRequest('message must not be empty', [{ path: '/message', message: 'empty' }])
  if ((await aiCredits.balance(store, caller.organizationId)) <= 0) throw new CreditsExhaustedError()

  return async (emit: Emit, signal: AbortSignal) => {
    const turnId = ids.next('job')
    if (!contract) {
      contract = await newContract(deps, caller, body.message)
      emit('contract', { contractId: contract.id })
    }
    await runContractTurn(deps, caller, body, turnId, contract, emit, signal)
  }
}
