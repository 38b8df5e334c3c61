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
 *
 * This file holds the contract, the checks before a turn and the reads; the turn
 * (builder-chat-turn.ts), the model's tools (builder-chat-tools.ts) and applying a proposal
 * (builder-chat-proposals.ts) live beside it.
 */
import type { Catalog } from '../plugin/catalog.ts'
import { badRequest } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { aiCredits, type CreditEntry } from '../store/ai-credits.ts'
import { chatMessages } from '../store/chat-messages.ts'
import { iso } from '../time.ts'
import { type AiService, CreditsExhaustedError } from './ai.ts'
import type { Principal } from './auth.ts'
import { runBuilderTurn } from './builder-chat-turn.ts'
import { type ChatMessage, type Emit, toChatMessage } from './chat-transcript.ts'
import { guarded, type OperationTable } from './operations.ts'
import type { RunService } from './runs.ts'
import type { WorkflowService } from './workflows.ts'

export { BUILDER_AGENT_VERSION } from './builder-chat-turn.ts'
export { type ChatMessage, type Emit, toChatMessage } from './chat-transcript.ts'

const CONTEXT_MESSAGES = 20

export interface BuilderChatDeps {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  ai: AiService
  workflows: WorkflowService
  runs: RunService
  catalog: Catalog
}

/** A message to the builder chat: a new conversation, or one going on (its workflow found from its history). */
export interface BuilderChatBody {
  message: string
  conversationId?: string
  workflowId?: string
  sessionId?: string
  imageUrls?: string[]
}

/** Which messages to read (by conversation, workflow or session), newest page first, before a time. */
export interface HistoryQuery {
  conversationId?: string
  workflowId?: string
  sessionId?: string
  limit: number
  before?: string
  beforeId?: string
}

/** The builder chat of an organization: its turns, its history, and the AI credits it spends. */
export interface BuilderChat {
  /**
   * Checks what can be checked before a stream starts (400, 402, 503, 404); the returned
   * function runs the turn, emitting its events.
   */
  prepare(caller: Principal, body: BuilderChatBody): Promise<(emit: Emit, signal: AbortSignal) => Promise<void>>
  /** The newest page of messages, oldest first: a client prepends it above what it shows. */
  history(caller: Principal, query: HistoryQuery): Promise<ChatMessage[]>
  /** Whether a turn may start: the organization's AI credit balance is above zero. */
  preflight(caller: Principal): Promise<{ allowed: boolean }>
  /** The organization's AI credit balance and its latest ledger entries (newest first, at most 100). */
  credits(
    caller: Principal,
  ): Promise<{ balance: number; items: Array<Omit<CreditEntry, 'createdAt'> & { createdAt: string }> }>
}

const OPERATIONS: OperationTable<BuilderChat> = {
  prepare: ['ai:chat'],
  history: ['ai:chat'],
  preflight: ['ai:chat'],
  credits: ['ai:chat'],
}

export function createBuilderChat(deps: BuilderChatDeps): BuilderChat {
  const { store } = deps
  return guarded<BuilderChat>('builderChat', OPERATIONS, {
    /** Whether a turn may start: the organization's AI credit balance is above zero. */
    async preflight(caller) {
      return { allowed: (await aiCredits.balance(store, caller.organizationId)) > 0 }
    },

    /** The organization's AI credit balance and its latest ledger entries (newest first, at most 100). */
    async credits(caller) {
      const [balance, items] = await Promise.all([
        aiCredits.balance(store, caller.organizationId),
        aiCredits.entries(store, caller.organizationId),
      ])
      // Unset strings are "" in answers (the specification's rule): a grant belongs to no turn.
      const shown = items.map((item) => ({ ...item, turnId: item.turnId ?? '', createdAt: iso(item.createdAt) }))
      return { balance, items: shown }
    },

    prepare: async (caller, body) => prepareTurn(deps, caller, body),
    history: async (caller, query) => history(deps, caller, query),
  })
}

/**
 * Checks what can be checked before a stream starts (400, 402, 503, 404); the returned
 * function runs the turn, emitting its events.
 */
async function prepareTurn(deps: BuilderChatDeps, caller: Principal, body: BuilderChatBody) {
  const { store } = deps
  deps.ai.requireConfigured()
  if (!body.message.trim()) throw badRequest('message must not be empty', [{ path: '/message', message: 'empty' }])
  if ((await aiCredits.balance(store, caller.organizationId)) <= 0) throw new CreditsExhaustedError()
  let workflowId = body.workflowId ?? null
  if (workflowId) await deps.workflows.get(caller, workflowId)
  const conversationId = body.conversationId ?? deps.ids.next('conv')
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
  const start = { conversationId, workflowId, history }
  return (emit: Emit, signal: AbortSignal) => runBuilderTurn(deps, caller, body, start, emit, signal)
}

async function history(deps: BuilderChatDeps, caller: Principal, query: HistoryQuery): Promise<ChatMessage[]> {
  const by = query.conversationId
    ? { column: 'conversation_id' as const, value: query.conversationId }
    : query.workflowId
      ? { column: 'workflow_id' as const, value: query.workflowId }
      : query.sessionId
        ? { column: 'session_id' as const, value: query.sessionId }
        : null
  if (!by)
    throw badRequest('name a conversationId, a workflowId or a sessionId', [
      { path: '/conversationId', in: 'query', message: 'one of conversationId, workflowId, sessionId is required' },
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
  const rows = await chatMessages.page(deps.store, caller.organizationId, by, 'builder', query.limit, before)
  // The newest page, oldest first: a client prepends it above what it shows.
  return rows.reverse().map(toChatMessage)
}
