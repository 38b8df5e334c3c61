/** What both chats answer of their stored messages, and how a turn emits its events. */
import type { LinkedMessageRow } from '../store/chat-messages.ts'
import { iso } from '../time.ts'

/** Sends one event of a streamed turn. */
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
export const bytesOf = (value: unknown) => JSON.stringify([...new TextEncoder().encode(JSON.stringify(value))])
