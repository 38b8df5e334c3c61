/**
 * One turn of the builder chat: the person's message is stored, the model is called (again after
 * its tool calls, up to MAX_ROUNDS), and the assistant's message is stored with the proposal it
 * made and the run it linked.
 */
import type { AiMessage } from '../ports/ai.ts'
import { chatMessages, type ChatMessageRow } from '../store/chat-messages.ts'
import type { Principal } from './auth.ts'
import type { BuilderChatBody, BuilderChatDeps } from './builder-chat.ts'
import { answerToolCall, type BuilderTurn, systemPrompt, TOOLS } from './builder-chat-tools.ts'
import { bytesOf, type Emit } from './chat-transcript.ts'
import { workflowEtag } from './workflow-etag.ts'

export const BUILDER_AGENT_VERSION = 'builder-1'
/** Model calls in one turn: the first, and repairs of refused proposals or after tool results. */
const MAX_ROUNDS = 4

/** Where a turn starts: its conversation, the workflow it edits (if any) and the messages before it. */
export interface TurnStart {
  conversationId: string
  workflowId: string | null
  history: ChatMessageRow[]
}

/** Runs a turn, emitting its events; a failure is an `error` event, and `done` always ends it. */
export async function runBuilderTurn(
  deps: BuilderChatDeps,
  caller: Principal,
  body: BuilderChatBody,
  start: TurnStart,
  emit: Emit,
  signal: AbortSignal,
): Promise<void> {
  const turnId = deps.ids.next('job')
  const common = {
    organization_id: caller.organizationId,
    chat: 'builder' as const,
    conversation_id: start.conversationId,
    session_id: body.sessionId ?? null,
    turn_id: turnId,
  }
  await saveMessage(deps, {
    ...common,
    workflow_id: start.workflowId,
    role: 'user',
    content: body.message,
    sender_user_id: caller.userId,
    structured_payload: null,
    tokens_used: 0,
    linked_run_id: null,
    imageUrls: body.imageUrls,
  })
  // The version check of proposals: the draft as it was before the model read it.
  const etag = start.workflowId ? await workflowEtag(await deps.workflows.get(caller, start.workflowId)) : null
  const messages = await contextOf(deps, caller, body, start)
  const turn: BuilderTurn = { deps, caller, emit, workflowId: start.workflowId, etag, linkedRun: null, proposal: null }
  let text = ''
  let tokens = 0
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
        const answer = await answerToolCall(turn, call)
        messages.push({ role: 'tool', content: JSON.stringify(answer), toolCallId: call.id })
      }
    }
  } catch (error) {
    emit('error', { message: error instanceof Error ? error.message : String(error) })
  }
  const messageId = await saveMessage(deps, {
    ...common,
    workflow_id: turn.workflowId,
    role: 'assistant',
    content: text,
    sender_user_id: null,
    structured_payload: turn.proposal ? bytesOf({ definition: turn.proposal }) : null,
    tokens_used: tokens,
    linked_run_id: turn.linkedRun,
  })
  emit('done', { conversationId: start.conversationId, messageId, workflowId: turn.workflowId })
}

/** What the model reads: the system prompt, the conversation so far, the draft being edited, the new message. */
async function contextOf(
  deps: BuilderChatDeps,
  caller: Principal,
  body: BuilderChatBody,
  { workflowId, history }: TurnStart,
): Promise<AiMessage[]> {
  return [
    { role: 'system', content: systemPrompt(deps.catalog) },
    ...history
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
    ...(workflowId
      ? [
          {
            role: 'system' as const,
            content: `The workflow being edited is ${workflowId}; its draft definition is ${JSON.stringify((await deps.workflows.getDraft(caller, workflowId).catch(() => deps.workflows.get(caller, workflowId))).definition)}`,
          },
        ]
      : []),
    { role: 'user', content: body.message },
  ]
}

/** Stores one message of the builder chat. */
async function saveMessage(
  deps: BuilderChatDeps,
  m: Omit<ChatMessageRow, 'id' | 'created_at' | 'image_urls' | 'agent_version'> & { imageUrls?: string[] },
): Promise<string> {
  const id = deps.ids.next('msg')
  const { imageUrls, ...rest } = m
  await deps.store.write((tx) =>
    chatMessages.insert(tx, {
      ...rest,
      id,
      image_urls: JSON.stringify(imageUrls ?? []),
      agent_version: BUILDER_AGENT_VERSION,
      created_at: deps.clock.now(),
    }),
  )
  return id
}
