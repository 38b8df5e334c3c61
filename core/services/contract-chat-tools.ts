/**
 * What the contract chat's model is told and may call (the system prompt, the planning and
 * writing tools), and the one call to the model a turn makes each time.
 */
import type { AiMessage, AiTool } from '../ports/ai.ts'
import { type ContractRow, contracts } from '../store/chat-messages.ts'
import type { Principal } from './auth.ts'
import type { Emit } from './chat-transcript.ts'
import type { ContractChatDeps } from './contract-chat.ts'

export const PLAN_TOOL: AiTool = {
  name: 'propose_plan',
  description: 'Propose a short numbered plan for the contract; the person approves or rejects it.',
  parameters: {
    type: 'object',
    required: ['name', 'steps'],
    properties: {
      name: { type: 'string', description: 'The contract name, a Solidity identifier' },
      steps: { type: 'array', items: { type: 'string' } },
    },
  },
}

export const WRITE_TOOL: AiTool = {
  name: 'write_contract',
  description: 'Write the complete Solidity source of the contract (SPDX line and pragma included).',
  parameters: { type: 'object', required: ['source'], properties: { source: { type: 'string' } } },
}

export const SYSTEM = [
  'You write Solidity smart contracts for people who describe them in plain words.',
  'First agree on a plan: call propose_plan with a contract name and a few numbered steps, then wait for approval.',
  'Once the plan is approved, call write_contract with the whole source: `// SPDX-License-Identifier: MIT`, `pragma solidity ^0.8.20;`, one main contract named as planned, no imports.',
  'Prefer simple, safe code: checks-effects-interactions, custom errors, events for state changes.',
].join('\n')

/** A plan the model proposed, with a name that is a Solidity identifier and at most 30 steps. */
export function planOf(args: Record<string, unknown>): { name: string; steps: string[] } {
  return {
    name:
      String(args.name ?? 'Contract')
        .replace(/[^A-Za-z0-9_]/g, '')
        .slice(0, 64) || 'Contract',
    steps: Array.isArray(args.steps) ? args.steps.map(String).slice(0, 30) : [],
  }
}

/** One turn of the contract chat: the conversation so far, and what the turn has spent and said. */
export interface ContractTurn {
  readonly deps: ContractChatDeps
  readonly caller: Principal
  /** The contract the turn works on; `updateContract` keeps it current. */
  readonly contract: ContractRow
  readonly messages: AiMessage[]
  readonly emit: Emit
  readonly signal: AbortSignal
  tokens: number
  text: string
  status: string
}

/** Changes the contract record and the turn's copy of it. */
export async function updateContract(turn: ContractTurn, patch: Partial<ContractRow>): Promise<void> {
  const c = turn.contract
  Object.assign(c, patch, { updated_at: turn.deps.clock.now() })
  await turn.deps.store.write((tx) => contracts.update(tx, c.id, { ...patch, updated_at: c.updated_at }))
  turn.status = c.status
}

/** One model call offered `tool`, after `extra`: the call of that tool it made, if any. */
export async function callModel(
  turn: ContractTurn,
  extra: AiMessage[],
  tool: AiTool,
): Promise<{ id: string; args: Record<string, unknown> } | null> {
  turn.messages.push(...extra)
  const result = await turn.deps.ai.turn(
    turn.caller.organizationId,
    { messages: turn.messages, tools: [tool], signal: turn.signal, maxTokens: 8192 },
    (delta) => turn.emit('message.delta', { text: delta }),
  )
  turn.tokens += result.usage.totalTokens
  turn.text += result.text
  turn.messages.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls })
  const found = result.toolCalls.find((t) => t.name === tool.name)
  return found ? { id: found.id, args: JSON.parse(found.arguments || '{}') as Record<string, unknown> } : null
}
