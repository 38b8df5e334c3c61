/**
 * The workflow-builder chat: a person describes a workflow, the model proposes a definition
 * through a tool call, the definition checker has the last word (a refused proposal goes back to
 * the model with the problems, a few times), and an accepted one is applied to the workflow's
 * draft. The model may also test-run the draft; the assistant's message then links the run and
 * follows it. Both sides of the conversation are stored as chat messages.
 *
 * Events of a turn: `message.delta` { text }, `workflow.proposed` { workflowId, version,
 * definition }, `run.linked` { runId }, `error` { message }, `done` { conversationId, messageId,
 * workflowId }.
 */
import type { Catalog } from '../plugin/catalog.ts'
import type { Definition } from '../domain/workflow.ts'
import { badRequest } from '../errors.ts'
import type { AiMessage, AiTool } from '../ports/ai.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { aiCredits } from '../store/ai-credits.ts'
import { chatMessages, type ChatMessageRow, type LinkedMessageRow } from '../store/chat-messages.ts'
import { iso } from '../time.ts'
import { type AiService, CreditsExhaustedError } from './ai.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import type { RunService } from './runs.ts'
import type { WorkflowService } from './workflows.ts'

export const BUILDER_AGENT_VERSION = 'builder-1'
/** Model calls in one turn: the first, and repairs of refused proposals or after tool results. */
const MAX_ROUNDS = 4
const CONTEXT_MESSAGES = 20

export type Emit = (event: string, data: unknown) => void

export interface ChatMessage {
  id: string
  agentVersion: string
  content: string
  conversationId: string
  createdAt: string
  organizationId: string
  role: string
  senderUserId: string
  sessionId: string
  turnId: string
  workflowId: string
  imageUrls: string[]
  structuredPayload: number[]
  tokensUsed: number
  linkedRunId: string
  linkedRunStartedAt: string
  linkedRunFinishedAt: string
  linkedRunStatus: string
}

export function toChatMessage(r: LinkedMessageRow): ChatMessage {
  return {
    id: r.id,
    agentVersion: r.agent_version,
    content: r.content,
    conversationId: r.conversation_id,
    createdAt: iso(Number(r.created_at)),
    organizationId: r.organization_id,
    role: r.role,
    senderUserId: r.sender_user_id ?? '',
    sessionId: r.session_id ?? '',
    turnId: r.turn_id,
    workflowId: r.workflow_id ?? '',
    imageUrls: JSON.parse(r.image_urls) as string[],
    structuredPayload: r.structured_payload ? (JSON.parse(r.structured_payload) as number[]) : [],
    tokensUsed: Number(r.tokens_used),
    linkedRunId: r.linked_run_id ?? '',
    linkedRunStartedAt: r.run_started_at === null ? '' : iso(Number(r.run_started_at)),
    linkedRunFinishedAt: r.run_finished_at === null ? '' : iso(Number(r.run_finished_at)),
    linkedRunStatus: r.run_status ?? '',
  }
}

/** A message's bytes as the specification's `structuredPayload` (UTF-8 of a JSON document). */
const bytesOf = (value: unknown) => JSON.stringify([...new TextEncoder().encode(JSON.stringify(value))])

const TOOLS: AiTool[] = [
  {
    name: 'propose_workflow',
    description:
      'Propose the whole workflow definition. It is checked; if it is refused you get the problems and may propose again.',
    parameters: {
      type: 'object',
      required: ['definition'],
      properties: {
        name: { type: 'string', description: 'A short name for the workflow' },
        description: { type: 'string', description: 'One or two sentences on what it does' },
        definition: {
          type: 'object',
          description: '{ triggerNodeIds: [id], nodes: { <id>: { type, payload?, children? } } }',
        },
      },
    },
  },
  {
    name: 'test_run',
    description: 'Start a test run of the current draft with a payload; the person sees it live.',
    parameters: { type: 'object', properties: { payload: { type: 'object' } } },
  },
]

function systemPrompt(catalog: Catalog): string {
  const line = (e: { type: string; description: string }) => `- ${e.type}: ${e.description}`
  return [
    'You build workflows for Automaton, a workflow automation service, by calling propose_workflow with a complete definition.',
    'A definition is { "triggerNodeIds": ["root"], "nodes": { "root": { "type": "<trigger type>", "payload": {…}, "children": ["next"] }, "next": { "type": "<action type>", "payload": {…} } } }.',
    'Node ids use letters, digits, "_" and "-". Payload values may use expressions such as {{$trigger.body.field}} or {{root.result}}.',
    'Trigger types:',
    ...catalog.triggers.slice(0, 60).map(line),
    'Action types:',
    ...catalog.actions.slice(0, 80).map(line),
    'Answer briefly; explain what you built after proposing it.',
  ].join('\n')
}

/** What a caller of the chat reads of the organization's AI credits. */
function creditReads(store: Store) {
  return {
    /** Whether a turn may start: the organization's AI credit balance is above zero. */
    async preflight(caller: Principal): Promise<{ allowed: boolean }> {
      return { allowed: (await aiCredits.balance(store, caller.organizationId)) > 0 }
    },

    /** The organization's AI credit balance and its latest ledger entries (newest first, at most 100). */
    async credits(caller: Principal) {
      const [balance, items] = await Promise.all([
        aiCredits.balance(store, caller.organizationId),
        aiCredits.entries(store, caller.organizationId),
      ])
      return { balance, items: items.map((item) => ({ ...item, createdAt: iso(item.createdAt) })) }
    },
  }
}

export function createBuilderChat(deps: {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  ai: AiService
  workflows: WorkflowService
  runs: RunService
  catalog: Catalog
}) {
  const { store, clock, ids } = deps

  async function save(
    m: Omit<ChatMessageRow, 'id' | 'created_at' | 'image_urls' | 'agent_version'> & { imageUrls?: string[] },
  ): Promise<string> {
    const id = ids.next('msg')
    const { imageUrls, ...rest } = m
    await store.write((tx) =>
      chatMessages.insert(tx, {
        ...rest,
        id,
        image_urls: JSON.stringify(imageUrls ?? []),
        agent_version: BUILDER_AGENT_VERSION,
        created_at: clock.now(),
      }),
    )
    return id
  }

  return guarded(
    'builderChat',
    {
      prepare: ['ai:chat'],
      history: ['ai:chat'],
      preflight: ['ai:chat'],
      credits: ['ai:chat'],
    },
    {
      ...creditReads(store),

      /**
       * Checks what can be checked before a stream starts (400, 402, 503, 404); the returned
       * function runs the turn, emitting its events.
       */
      async prepare(
        caller: Principal,
        body: {
          message: string
          conversationId?: string
          workflowId?: string
          sessionId?: string
          imageUrls?: string[]
        },
      ) {
        deps.ai.requireConfigured()
        if (!body.message.trim())
          throw badRequest('message must not be empty', [{ path: '/message', message: 'empty' }])
        if ((await aiCredits.balance(store, caller.organizationId)) <= 0) throw new CreditsExhaustedError()
        let workflowId = body.workflowId ?? null
        if (workflowId) await deps.workflows.get(caller, workflowId)
        const conversationId = body.conversationId ?? ids.next('conv')
        const history = body.conversationId
          ? (
              await chatMessages.page(
                store,
                caller.organizationId,
                { column: 'conversation_id', value: body.conversationId },
                'builder',
                CONTEXT_MESSAGES,
              )
            ).reverse()
          : []
        if (!workflowId) workflowId = history.findLast((m) => m.workflow_id)?.workflow_id ?? null

        return async (emit: Emit, signal: AbortSignal) => {
          const turnId = ids.next('job')
          const common = {
            organization_id: caller.organizationId,
            chat: 'builder' as const,
            conversation_id: conversationId,
            session_id: body.sessionId ?? null,
            turn_id: turnId,
          }
          await save({
            ...common,
            workflow_id: workflowId,
            role: 'user',
            content: body.message,
            sender_user_id: caller.userId,
            structured_payload: null,
            tokens_used: 0,
            linked_run_id: null,
            imageUrls: body.imageUrls,
          })
          const messages: AiMessage[] = [
            { role: 'system', content: systemPrompt(deps.catalog) },
            ...history
              .filter((m) => m.role === 'user' || m.role === 'assistant')
              .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
            ...(workflowId
              ? [
                  {
                    role: 'system' as const,
                    content: `The workflow being edited is ${workflowId}; its draft definition is ${JSON.stringify((await deps.workflows.getDraft(caller, workflowId).catch(() => deps.workflows.get(caller, workflowId!))).definition)}`,
                  },
                ]
              : []),
            { role: 'user', content: body.message },
          ]
          let text = ''
          let tokens = 0
          let linkedRun: string | null = null
          let proposal: unknown = null
          try {
            for (let round = 0; round < MAX_ROUNDS && !signal.aborted; round++) {
              const result = await deps.ai.turn(caller.organizationId, { messages, tools: TOOLS, signal }, (delta) =>
                emit('message.delta', { text: delta }),
              )
              tokens += result.usage.totalTokens
              text += result.text
              if (result.toolCalls.length === 0) break
              messages.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls })
              for (const call of result.toolCalls) {
                let answer: unknown
                try {
                  const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>
                  if (call.name === 'propose_workflow') {
                    const applied = await apply(caller, workflowId, args)
                    if ('problems' in applied) answer = { accepted: false, problems: applied.problems }
                    else {
                      workflowId = applied.workflowId
                      proposal = args.definition
                      emit('workflow.proposed', applied)
                      answer = { accepted: true, workflowId, version: applied.version }
                    }
                  } else if (call.name === 'test_run') {
                    if (!workflowId) answer = { error: 'propose a workflow first' }
                    else {
                      const started = await deps.runs.start(
                        caller,
                        workflowId,
                        { payload: (args.payload as Record<string, unknown>) ?? {} },
                        new Headers(),
                      )
                      linkedRun = started.runId
                      emit('run.linked', { runId: started.runId })
                      answer = { runId: started.runId }
                    }
                  } else answer = { error: `unknown tool ${call.name}` }
                } catch (error) {
                  answer = { error: error instanceof Error ? error.message : String(error) }
                }
                messages.push({ role: 'tool', content: JSON.stringify(answer), toolCallId: call.id })
              }
            }
          } catch (error) {
            emit('error', { message: error instanceof Error ? error.message : String(error) })
          }
          const messageId = await save({
            ...common,
            workflow_id: workflowId,
            role: 'assistant',
            content: text,
            sender_user_id: null,
            structured_payload: proposal ? bytesOf({ definition: proposal }) : null,
            tokens_used: tokens,
            linked_run_id: linkedRun,
          })
          emit('done', { conversationId, messageId, workflowId })
        }
      },

      async history(
        caller: Principal,
        query: {
          conversationId?: string
          workflowId?: string
          sessionId?: string
          limit: number
          before?: string
          beforeId?: string
        },
      ) {
        const by = query.conversationId
          ? { column: 'conversation_id' as const, value: query.conversationId }
          : query.workflowId
            ? { column: 'workflow_id' as const, value: query.workflowId }
            : query.sessionId
              ? { column: 'session_id' as const, value: query.sessionId }
              : null
        if (!by)
          throw badRequest('name a conversationId, a workflowId or a sessionId', [
            {
              path: '/conversationId',
              in: 'query',
              message: 'one of conversationId, workflowId, sessionId is required',
            },
          ])
        let before: { at: number; id: string | null } | undefined
        if (query.before !== undefined) {
          const at = Date.parse(query.before)
          if (!/^\d{4}-\d{2}-\d{2}T/.test(query.before) || Number.isNaN(at))
            throw badRequest('before must be an RFC 3339 time', [
              { path: '/before', in: 'query', message: 'not an RFC 3339 time' },
            ])
          before = { at, id: query.beforeId ?? null }
        } else if (query.beforeId !== undefined) {
          throw badRequest('beforeId goes with before', [{ path: '/beforeId', in: 'query', message: 'needs before' }])
        }
        const rows = await chatMessages.page(store, caller.organizationId, by, 'builder', query.limit, before)
        // The newest page, oldest first: a client prepends it above what it shows.
        return rows.reverse().map(toChatMessage)
      },
    },
  )

  /** Applies an accepted proposal to the draft (creating the workflow when there is none). */
  async function apply(caller: Principal, workflowId: string | null, args: Record<string, unknown>) {
    const definition = args.definition as Definition
    if (!definition || typeof definition !== 'object')
      return { problems: [{ path: '/definition', message: 'required' }] }
    const problems = await deps.workflows.definitionProblems(definition)
    if (problems.length > 0) return { problems }
    const aiName = typeof args.name === 'string' ? args.name.slice(0, 200) : ''
    const aiDescription = typeof args.description === 'string' ? args.description.slice(0, 5000) : ''
    if (!workflowId) {
      const created = await deps.workflows.create(caller, {
        definition,
        aiName,
        aiDescription,
        name: aiName || 'Untitled workflow',
        description: aiDescription,
      })
      return { workflowId: created.id, version: created.version, definition }
    }
    // Read and changed as the caller: a proposal never does more than the person chatting may.
    const current = await deps.workflows.get(caller, workflowId)
    const updated = await deps.workflows.update(caller, workflowId, {
      definition,
      aiName,
      aiDescription,
      // What a person named themselves stays theirs.
      ...(current.nameManuallySet || !aiName ? {} : { name: aiName }),
      ...(current.descManuallySet || !aiDescription ? {} : { description: aiDescription }),
    })
    return { workflowId, version: updated.version, definition }
  }
}

export type BuilderChat = ReturnType<typeof createBuilderChat>
