/**
 * One turn of the contract chat: the person's message is stored, the model plans (or, once the
 * plan is approved, writes), and the assistant's message is stored with the contract's status.
 */
import type { AiMessage } from '../ports/ai.ts'
import { chatMessages, type ContractRow, contracts } from '../store/chat-messages.ts'
import { actorOf, type Principal } from './auth.ts'
import { bytesOf, type Emit } from './chat-transcript.ts'
import type { ContractChatBody, ContractChatDeps } from './contract-chat.ts'
import { callModel, type ContractTurn, PLAN_TOOL, planOf, SYSTEM, updateContract } from './contract-chat-tools.ts'
import { writeContract } from './contract-chat-writing.ts'

export const CONTRACT_AGENT_VERSION = 'contract-1'

/** A new contract record, named after the first words of the person's message, stored. */
export async function newContract(deps: ContractChatDeps, caller: Principal, message: string): Promise<ContractRow> {
  const at = deps.clock.now()
  const contract: ContractRow = {
    id: deps.ids.next('ctr'),
    organization_id: caller.organizationId,
    name: message.trim().split(/\s+/).slice(0, 6).join(' ').slice(0, 100),
    status: 'drafting',
    plan: null,
    source: null,
    abi: null,
    bytecode: null,
    compile_error: null,
    created_by: actorOf(caller),
    created_at: at,
    updated_at: at,
  }
  await deps.store.write((tx) => contracts.insert(tx, contract))
  return contract
}

/** Runs a turn on `contract`, emitting its events; a failure is an `error` event, and `done` always ends it. */
export async function runContractTurn(
  deps: ContractChatDeps,
  caller: Principal,
  body: ContractChatBody,
  turnId: string,
  contract: ContractRow,
  emit: Emit,
  signal: AbortSignal,
): Promise<void> {
  const history = (
    await chatMessages.page(
      deps.store,
      caller.organizationId,
      { column: 'conversation_id', value: contract.id },
      'contract',
      20,
    )
  ).reverse()
  const said = body.action ? `${body.action}${body.message ? `: ${body.message}` : ''}` : body.message
  await saveMessage(deps, caller, contract.id, turnId, 'user', said)
  const messages: AiMessage[] = [
    { role: 'system', content: SYSTEM },
    ...history
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
  ]
  const turn: ContractTurn = {
    deps,
    caller,
    contract,
    messages,
    emit,
    signal,
    tokens: 0,
    text: '',
    status: contract.status,
  }
  try {
    if (body.action === 'approve_plan') {
      await updateContract(turn, { status: 'writing' })
      await writeContract(turn, [
        {
          role: 'user',
          content: `The plan is approved${body.message ? `: ${body.message}` : ''}. Write the contract now.`,
        },
      ])
    } else await plan(turn, body)
  } catch (error) {
    emit('error', { message: error instanceof Error ? error.message : String(error) })
  }
  const messageId = await saveMessage(deps, caller, contract.id, turnId, 'assistant', turn.text, {
    tokens: turn.tokens,
    payload: { status: turn.status, plan: contract.plan ? JSON.parse(contract.plan) : null },
  })
  emit('done', { contractId: contract.id, messageId, status: turn.status })
}

/** Asks the model for a plan (again, with the person's feedback, after a rejection); a proposed plan waits for approval. */
async function plan(turn: ContractTurn, body: ContractChatBody): Promise<void> {
  if (body.action === 'reject_plan') await updateContract(turn, { status: 'drafting', plan: null })
  const content = body.action === 'reject_plan' ? `The plan is rejected. ${body.message}`.trim() : body.message
  const planned = await callModel(turn, [{ role: 'user', content }], PLAN_TOOL)
  if (planned) {
    const proposed = planOf(planned.args)
    await updateContract(turn, { status: 'plan_pending', plan: JSON.stringify(proposed), name: proposed.name })
    turn.emit('plan', proposed)
  }
}

/** Stores one message of the contract's conversation. */
async function saveMessage(
  deps: ContractChatDeps,
  caller: Principal,
  contractId: string,
  turnId: string,
  role: string,
  content: string,
  extra: { tokens?: number; payload?: unknown } = {},
): Promise<string> {
  const id = deps.ids.next('msg')
  await deps.store.write((tx) =>
    chatMessages.insert(tx, {
      id,
      organization_id: caller.organizationId,
      chat: 'contract',
      conversation_id: contractId,
      workflow_id: null,
      session_id: null,
      turn_id: turnId,
      role,
      content,
      agent_version: CONTRACT_AGENT_VERSION,
      sender_user_id: role === 'user' ? caller.userId : null,
      image_urls: '[]',
      structured_payload: extra.payload === undefined ? null : bytesOf(extra.payload),
      tokens_used: extra.tokens ?? 0,
      linked_run_id: null,
      created_at: deps.clock.now(),
    }),
  )
  return id
}
