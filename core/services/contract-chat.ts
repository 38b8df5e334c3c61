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
 */
import { toDeployment } from './wallets.ts'
import { deployments } from '../store/wallets.ts'
import { badRequest, notFound } from '../errors.ts'
import type { AiMessage, AiTool } from '../ports/ai.ts'
import type { Clock } from '../ports/clock.ts'
import type { SolidityCompiler } from '../ports/compiler.ts'
import type { Ids } from '../ports/ids.ts'
import type { Store } from '../ports/store.ts'
import { aiCredits } from '../store/ai-credits.ts'
import { chatMessages, type ContractRow, contracts } from '../store/chat-messages.ts'
import { iso } from '../time.ts'
import { type AiService, CreditsExhaustedError } from './ai.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { type Emit, toChatMessage } from './builder-chat.ts'

export const CONTRACT_AGENT_VERSION = 'contract-1'
export const MAX_CONTRACT_MESSAGE = 51_200
const CODE_CHUNK = 400

const PLAN_TOOL: AiTool = {
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
const WRITE_TOOL: AiTool = {
  name: 'write_contract',
  description: 'Write the complete Solidity source of the contract (SPDX line and pragma included).',
  parameters: { type: 'object', required: ['source'], properties: { source: { type: 'string' } } },
}

const SYSTEM = [
  'You write Solidity smart contracts for people who describe them in plain words.',
  'First agree on a plan: call propose_plan with a contract name and a few numbered steps, then wait for approval.',
  'Once the plan is approved, call write_contract with the whole source: `// SPDX-License-Identifier: MIT`, `pragma solidity ^0.8.20;`, one main contract named as planned, no imports.',
  'Prefer simple, safe code: checks-effects-interactions, custom errors, events for state changes.',
].join('\n')

export function createContractChat(deps: {
  store: Store
  clock: Clock
  ids: Ids
  ai: AiService
  compiler: SolidityCompiler
}) {
  const { store, clock, ids } = deps

  function toContract(r: ContractRow) {
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

  async function save(
    caller: Principal,
    contractId: string,
    turnId: string,
    role: string,
    content: string,
    extra: { tokens?: number; payload?: unknown } = {},
  ) {
    const id = ids.next('msg')
    await store.write((tx) =>
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
        structured_payload:
          extra.payload === undefined
            ? null
            : JSON.stringify([...new TextEncoder().encode(JSON.stringify(extra.payload))]),
        tokens_used: extra.tokens ?? 0,
        linked_run_id: null,
        created_at: clock.now(),
      }),
    )
    return id
  }

  return guarded(
    'contractChat',
    {
      prepare: ['ai:chat'],
      list: ['ai:chat'],
      get: ['ai:chat'],
    },
    {
      async prepare(
        caller: Principal,
        body: { message: string; contractId?: string; action?: 'approve_plan' | 'reject_plan' },
      ) {
        deps.ai.requireConfigured()
        if (body.message.length > MAX_CONTRACT_MESSAGE)
          throw badRequest(`message must be at most ${MAX_CONTRACT_MESSAGE} characters`, [
            { path: '/message', message: 'too long' },
          ])
        let contract: ContractRow | undefined
        if (body.contractId) {
          contract = await contracts.byId(store, caller.organizationId, body.contractId)
          if (!contract)
            throw badRequest('no such contract in this organization', [
              { path: '/contractId', message: 'unknown contract' },
            ])
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
          const at = clock.now()
          if (!contract) {
            contract = {
              id: ids.next('ctr'),
              organization_id: caller.organizationId,
              name: body.message.trim().split(/\s+/).slice(0, 6).join(' ').slice(0, 100),
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
            await store.write((tx) => contracts.insert(tx, contract!))
            emit('contract', { contractId: contract.id })
          }
          const c = contract
          const history = (
            await chatMessages.page(
              store,
              caller.organizationId,
              { column: 'conversation_id', value: c.id },
              'contract',
              20,
            )
          ).reverse()
          await save(
            caller,
            c.id,
            turnId,
            'user',
            body.action ? `${body.action}${body.message ? `: ${body.message}` : ''}` : body.message,
          )
          const messages: AiMessage[] = [
            { role: 'system', content: SYSTEM },
            ...history
              .filter((m) => m.role === 'user' || m.role === 'assistant')
              .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
          ]
          let tokens = 0
          let text = ''
          let status = c.status
          const update = async (patch: Partial<ContractRow>) => {
            Object.assign(c, patch, { updated_at: clock.now() })
            await store.write((tx) => contracts.update(tx, c.id, { ...patch, updated_at: c.updated_at }))
            status = c.status
          }
          const call = async (extra: AiMessage[], tool: AiTool) => {
            messages.push(...extra)
            const result = await deps.ai.turn(
              caller.organizationId,
              { messages, tools: [tool], signal, maxTokens: 8192 },
              (delta) => emit('message.delta', { text: delta }),
            )
            tokens += result.usage.totalTokens
            text += result.text
            messages.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls })
            const found = result.toolCalls.find((t) => t.name === tool.name)
            return found ? { id: found.id, args: JSON.parse(found.arguments || '{}') as Record<string, unknown> } : null
          }
          /** Writes and compiles; on a compile error, one repair turn with the errors. */
          const write = async (extra: AiMessage[]) => {
            let written = await call(extra, WRITE_TOOL)
            for (let attempt = 0; written && attempt < 2; attempt++) {
              const source = String(written.args.source ?? '')
              for (let i = 0; i < source.length; i += CODE_CHUNK)
                emit('code.delta', { text: source.slice(i, i + CODE_CHUNK) })
              const compiled = await deps.compiler.compile(
                source,
                `${c.name.replace(/[^A-Za-z0-9_]/g, '') || 'Contract'}.sol`,
              )
              const main =
                compiled.contracts.find((x) => x.name === (JSON.parse(c.plan ?? '{}') as { name?: string }).name) ??
                compiled.contracts.at(-1)
              if (compiled.errors.length === 0 && main) {
                await update({
                  status: 'compiled',
                  source,
                  abi: JSON.stringify(main.abi),
                  bytecode: main.bytecode,
                  compile_error: null,
                })
                emit('compiled', {
                  name: main.name,
                  abi: main.abi,
                  bytecode: main.bytecode,
                  warnings: compiled.warnings,
                })
                return
              }
              const errors = compiled.errors.length > 0 ? compiled.errors : ['the source holds no contract']
              if (attempt === 1) {
                await update({ status: 'compile_failed', source, compile_error: errors.join('\n\n') })
                emit('compile_error', { errors })
                return
              }
              written = await call(
                [
                  {
                    role: 'tool',
                    toolCallId: written.id,
                    content: `The compiler refused it:\n${errors.join('\n\n')}\nFix it and call write_contract again with the whole source.`,
                  },
                ],
                WRITE_TOOL,
              )
            }
            if (!written) emit('error', { message: 'the model wrote no contract' })
          }
          try {
            if (body.action === 'approve_plan') {
              await update({ status: 'writing' })
              await write([
                {
                  role: 'user',
                  content: `The plan is approved${body.message ? `: ${body.message}` : ''}. Write the contract now.`,
                },
              ])
            } else {
              if (body.action === 'reject_plan') await update({ status: 'drafting', plan: null })
              const content =
                body.action === 'reject_plan' ? `The plan is rejected. ${body.message}`.trim() : body.message
              const planned = await call([{ role: 'user', content }], PLAN_TOOL)
              if (planned) {
                const plan = {
                  name:
                    String(planned.args.name ?? 'Contract')
                      .replace(/[^A-Za-z0-9_]/g, '')
                      .slice(0, 64) || 'Contract',
                  steps: Array.isArray(planned.args.steps) ? planned.args.steps.map(String).slice(0, 30) : [],
                }
                await update({ status: 'plan_pending', plan: JSON.stringify(plan), name: plan.name })
                emit('plan', plan)
              }
            }
          } catch (error) {
            emit('error', { message: error instanceof Error ? error.message : String(error) })
          }
          const messageId = await save(caller, c.id, turnId, 'assistant', text, {
            tokens,
            payload: { status, plan: c.plan ? JSON.parse(c.plan) : null },
          })
          emit('done', { contractId: c.id, messageId, status })
        }
      },

      async list(caller: Principal, page: { limit: number; offset: number }) {
        const rows = await contracts.list(store, caller.organizationId, page.limit + 1, page.offset)
        return {
          hasMore: rows.length > page.limit,
          items: rows.slice(0, page.limit).map(toContract),
          limit: page.limit,
          offset: page.offset,
        }
      },

      async get(caller: Principal, id: string) {
        const row = await contracts.byId(store, caller.organizationId, id)
        if (!row) throw notFound('contract')
        const messages = (
          await chatMessages.page(
            store,
            caller.organizationId,
            { column: 'conversation_id', value: id },
            'contract',
            100,
          )
        )
          .reverse()
          .map(toChatMessage)
        return {
          ...toContract(row),
          messages,
          deployments: (await deployments.ofContract(store, caller.organizationId, id)).map(toDeployment),
        }
      },
    },
  )
}

export type ContractChat = ReturnType<typeof createContractChat>
