import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { BuilderChat, Emit } from '../../services/builder-chat.ts'
import type { ContractChat } from '../../services/contract-chat.ts'
import { MAX_CONTRACT_MESSAGE } from '../../services/contract-chat.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { raw } from '../responses.ts'
import { IdParams, intParam, PageQuery, t } from '../schemas.ts'
import { pageRequest } from '../../domain/common.ts'
import { type PushBodyFactory, sseResponse } from '../sse.ts'

export interface AiRouteDeps {
  builder: BuilderChat
  contracts: ContractChat
  sse: { heartbeatMs: number; maxBufferedBytes: number; pushBody?: PushBodyFactory }
}

const ChatMessage = Type.Object({
  id: Type.String(),
  agentVersion: Type.String(),
  content: Type.String(),
  conversationId: Type.String(),
  createdAt: Type.String(),
  organizationId: Type.String(),
  role: Type.String(),
  senderUserId: Type.String(),
  sessionId: Type.String(),
  turnId: Type.String(),
  workflowId: Type.String(),
  imageUrls: Type.Array(Type.String()),
  structuredPayload: Type.Array(Type.Integer()),
  tokensUsed: Type.Integer(),
  linkedRunId: Type.String(),
  linkedRunStartedAt: Type.String(),
  linkedRunFinishedAt: Type.String(),
  linkedRunStatus: Type.String({
    description: 'running, waiting, success, partial, failure or cancelled; empty without a linked run',
  }),
})

/** A turn streamed as server-sent events; the client going away aborts the model call. */
function streamTurn(options: AiRouteDeps['sse'], turn: (emit: Emit, signal: AbortSignal) => Promise<void>): Response {
  const controller = new AbortController()
  let n = 0
  return sseResponse({
    ...options,
    open(channel) {
      const emit: Emit = (event, data) => {
        if (!channel.closed) channel.send({ id: String(++n), event, data })
      }
      turn(emit, controller.signal)
        .catch((error) => emit('error', { message: error instanceof Error ? error.message : String(error) }))
        .finally(() => channel.close())
      return () => controller.abort(new Error('the client went away'))
    },
  })
}

const tags = ['ai']

const CreditEntry = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('grant'), Type.Literal('reserve'), Type.Literal('settle'), Type.Literal('refund')]),
  amount: Type.Integer({ description: 'Signed: positive adds to the balance.' }),
  turnId: Type.String({ description: 'the model turn it paid for; "" for a grant' }),
  note: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
})

/**
 * The AI endpoints: the credit gate and ledger, the workflow-builder chat and its history, and
 * the smart-contract chat with its contracts.
 */
export function aiRoutes(auth: AuthPlugin, deps: AiRouteDeps) {
  return new Elysia({ name: 'routes.ai' })
    .use(auth)
    .post(
      '/v1/ai/workflow/chat',
      async ({ principal, body }) => streamTurn(deps.sse, await deps.builder.prepare(principal, body)),
      {
        permission: 'ai:chat',
        body: t.Object({
          message: t.String({ maxLength: MAX_CONTRACT_MESSAGE }),
          conversationId: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
          workflowId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
          sessionId: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
          imageUrls: t.Optional(t.Array(t.String({ maxLength: 2000 }), { maxItems: 10 })),
        }),
        detail: doc({
          summary: 'A workflow-builder chat turn, streamed as server-sent events',
          description:
            'Events: message.delta, workflow.proposed (a definition that passed validation, applied to the draft), run.linked, error, done. 402 without credits, 503 without an AI provider.',
          tags,
          permission: 'ai:chat',
          produces: 'text/event-stream',
          errors: [402, 404, 503],
        }),
      },
    )
    .get(
      '/v1/ai/workflow/chat/history',
      ({ principal, query }) => deps.builder.history(principal, { ...query, limit: query.limit ?? 20 }),
      {
        permission: 'ai:chat',
        query: t.Object({
          conversationId: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
          workflowId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
          sessionId: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
          limit: t.Optional(intParam('limit', { minimum: 1, maximum: 100, default: 20 })),
          before: t.Optional(t.String({ maxLength: 40 })),
          beforeId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
        }),
        detail: doc({
          summary: "A page of the builder chat's messages, by conversation, workflow or session",
          description:
            'conversationId wins over workflowId over sessionId. The newest page before the cursor (before, beforeId), returned oldest first.',
          tags,
          permission: 'ai:chat',
          response: Type.Array(ChatMessage),
        }),
      },
    )
    .post(
      '/v1/contract/chat/stream',
      async ({ principal, body }) => streamTurn(deps.sse, await deps.contracts.prepare(principal, body)),
      {
        permission: 'ai:chat',
        body: t.Object({
          message: t.String({ maxLength: MAX_CONTRACT_MESSAGE }),
          contractId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
          action: t.Optional(t.Union([t.Literal('approve_plan'), t.Literal('reject_plan')])),
        }),
        detail: doc({
          summary: 'A smart-contract chat turn, streamed as server-sent events',
          description:
            'Events: contract (first message), message.delta, plan, code.delta, compiled or compile_error, error, done.',
          tags: ['contracts'],
          permission: 'ai:chat',
          produces: 'text/event-stream',
          errors: [402, 503],
        }),
      },
    )
    .get('/v1/contracts', ({ principal, query }) => deps.contracts.list(principal, pageRequest(query)), {
      permission: 'ai:chat',
      query: PageQuery,
      detail: doc({
        summary: "The organization's contract projects, newest first",
        tags: ['contracts'],
        permission: 'ai:chat',
      }),
    })
    .get('/v1/contracts/:id', ({ principal, params }) => deps.contracts.get(principal, params.id), {
      permission: 'ai:chat',
      params: IdParams,
      detail: doc({
        summary: 'A contract project: plan, source, ABI, bytecode, messages and deployments',
        tags: ['contracts'],
        permission: 'ai:chat',
        errors: [404],
      }),
    })
    .get('/v1/ai/workflow/chat/preflight', async ({ principal }) => raw(await deps.builder.preflight(principal)), {
      permission: 'ai:chat',
      detail: doc({
        summary: 'Whether a workflow-builder chat turn may start',
        description:
          "`allowed` is false when the organization's AI credit balance is zero or below. Answered without the envelope.",
        tags,
        permission: 'ai:chat',
        raw: true,
        response: Type.Object({ allowed: Type.Boolean() }),
      }),
    })
    .get('/v1/ai/credits', ({ principal }) => deps.builder.credits(principal), {
      permission: 'ai:chat',
      detail: doc({
        summary: "The organization's AI credit balance and its latest ledger entries",
        description:
          '1 credit = 1,000 tokens, rounded up. Entries are newest first (at most 100): operator grants, reservations before a model call, settlements by tokens used, refunds of failed calls.',
        tags,
        permission: 'ai:chat',
        response: Type.Object({ balance: Type.Integer(), items: Type.Array(CreditEntry) }),
      }),
    })
}
