/**
 * "Reply to ticket": posts a reply as one of the help desk's agents. The agent field's values are
 * the help desk's agents, loaded page by page (with search) while someone edits the node.
 */
import type { Sdk } from 'automaton/sdk'
import { answerOf, helpdeskApi } from './api.ts'
import type { HelpdeskConnector } from './index.ts'

export function replyToTicket({ defineAction, Type }: Sdk, connector: HelpdeskConnector) {
  return defineAction({
    type: 'helpdesk-reply',
    name: 'Reply to ticket',
    description: 'Posts a reply to a ticket as an agent of the help desk.',
    tags: ['support'],
    connector,
    payload: Type.Object({
      ticketId: Type.String({ minLength: 1 }),
      agent: Type.String({ minLength: 1, description: 'the agent who replies (their id)' }),
      text: Type.String({ minLength: 1, maxLength: 10_000 }),
    }),
    result: Type.Object({ replyId: Type.String() }),
    async run(ctx) {
      const { ticketId, agent, text } = ctx.payload
      // The help desk keeps idempotency keys of at most 64 characters: ours, hashed, is stable
      // across the engine's re-executions of this attempt, so a replay never replies twice.
      const key = await ctx.crypto.sha256(ctx.idempotencyKey)
      const reply = answerOf<{ id: string }>(
        await helpdeskApi(ctx, ctx.connector).post(
          `/api/tickets/${encodeURIComponent(ticketId)}/replies`,
          { agent, text },
          { 'idempotency-key': key },
        ),
        'replying',
      )
      return { replyId: reply.id }
    },
    options: {
      async agent(ctx) {
        const query = new URLSearchParams({ page: ctx.cursor ?? '1' })
        if (ctx.search) query.set('search', ctx.search)
        const page = answerOf<{ agents: { id: string; name: string }[]; nextPage: number | null }>(
          await helpdeskApi(ctx, ctx.connector).get(`/api/agents?${query}`),
          'listing agents',
        )
        return {
          items: page.agents.map((agent) => ({ label: agent.name, value: agent.id })),
          nextCursor: page.nextPage === null ? null : String(page.nextPage),
        }
      },
    },
  })
}
