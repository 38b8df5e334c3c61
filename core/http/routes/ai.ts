import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Store } from '../../ports/store.ts'
import { aiCredits } from '../../store/ai-credits.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { raw } from '../responses.ts'

const tags = ['ai']

const CreditEntry = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('grant'), Type.Literal('reserve'), Type.Literal('settle'), Type.Literal('refund')]),
  amount: Type.Integer({ description: 'Signed: positive adds to the balance.' }),
  turnId: Type.Union([Type.String(), Type.Null()]),
  note: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
})

/** The AI credit gate: `GET /v1/ai/workflow/chat/preflight` and `GET /v1/ai/credits`. */
export function aiRoutes(auth: AuthPlugin, store: Store) {
  return new Elysia({ name: 'routes.ai', prefix: '/v1/ai' })
    .use(auth)
    .get('/workflow/chat/preflight', async ({ principal }) => {
      const balance = await aiCredits.balance(store, principal.organizationId)
      return raw({ allowed: balance > 0 })
    }, {
      permission: 'ai:chat',
      detail: doc({
        summary: 'Whether a workflow-builder chat turn may start',
        description: '`allowed` is false when the organization\'s AI credit balance is zero or below. Answered without the envelope.',
        tags, permission: 'ai:chat', raw: true, response: Type.Object({ allowed: Type.Boolean() }),
      }),
    })
    .get('/credits', async ({ principal }) => {
      const [balance, items] = await Promise.all([
        aiCredits.balance(store, principal.organizationId),
        aiCredits.entries(store, principal.organizationId),
      ])
      return { balance, items: items.map((item) => ({ ...item, createdAt: new Date(item.createdAt).toISOString() })) }
    }, {
      permission: 'ai:chat',
      detail: doc({
        summary: 'The organization\'s AI credit balance and its latest ledger entries',
        description: '1 credit = 1,000 tokens, rounded up. Entries are newest first (at most 100): operator grants, reservations before a model call, settlements by tokens used, refunds of failed calls.',
        tags, permission: 'ai:chat', response: Type.Object({ balance: Type.Integer(), items: Type.Array(CreditEntry) }),
      }),
    })
}
