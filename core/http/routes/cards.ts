/** Agent cards: sealed cards, the allowances people make, one-time disclosure handles. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import type { CardService } from '../../services/cards.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { t } from '../schemas.ts'

const tags = ['agent cards']
const Card = T.Object({
  id: T.String(),
  name: T.String(),
  brand: T.String(),
  last4: T.String(),
  expMonth: T.Integer(),
  expYear: T.Integer(),
  createdAt: T.String(),
})
const Allowance = T.Record(T.String(), T.Any(), {
  description:
    '{ id, cardId, agentTypes, workflowIds, merchants, maxUses, uses, expiresAt, createdBy, createdAt, revokedAt }',
})
const CardParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) })

export function cardRoutes(auth: AuthPlugin, cards: CardService) {
  return new Elysia({ name: 'routes.cards' })
    .use(auth)
    .post('/v1/agent-cards', ({ principal, body }) => cards.create(principal, body), {
      permission: 'card:write',
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 100 }),
        number: t.String({ minLength: 12, maxLength: 30 }),
        expMonth: t.Integer({ minimum: 1, maximum: 12 }),
        expYear: t.Integer({ minimum: 2000, maximum: 2100 }),
        cvc: t.String({ minLength: 3, maxLength: 4 }),
        holderName: t.String({ minLength: 1, maxLength: 200 }),
      }),
      detail: doc({
        summary: 'Store a card for agents (sealed; only last4, brand and expiry are ever answered)',
        tags,
        permission: 'card:write',
        response: Card,
      }),
    })
    .get('/v1/agent-cards', ({ principal }) => cards.list(principal), {
      permission: 'card:read',
      detail: doc({
        summary: "The organization's agent cards",
        tags,
        permission: 'card:read',
        response: T.Array(Card),
      }),
    })
    .get('/v1/agent-cards/:id', ({ principal, params }) => cards.get(principal, params.id), {
      permission: 'card:read',
      params: CardParams,
      detail: doc({ summary: 'An agent card', tags, permission: 'card:read', response: Card, errors: [404] }),
    })
    .delete('/v1/agent-cards/:id', ({ principal, params }) => cards.remove(principal, params.id), {
      permission: 'card:write',
      params: CardParams,
      detail: doc({
        summary: 'Delete an agent card (its details and allowances go with it)',
        tags,
        permission: 'card:write',
        errors: [404],
        response: T.Object({ id: T.String(), deleted: T.Literal(true) }),
      }),
    })
    .post('/v1/agent-cards/:id/allowances', ({ principal, params, body }) => cards.allow(principal, params.id, body), {
      permission: 'card:write',
      params: CardParams,
      body: t.Object({
        agentTypes: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
        workflowIds: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
        merchants: t.Array(t.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: 50 }),
        maxUses: t.Integer({ minimum: 1, maximum: 10_000 }),
        expiresAt: t.String({ format: 'date-time' }),
      }),
      detail: doc({
        summary: 'Allow agents or workflows to use a card at merchant hosts (a person only)',
        description: "Needs a person's sign-in session: an API key is 403.",
        tags,
        permission: 'card:write',
        errors: [403, 404],
        response: Allowance,
      }),
    })
    .get('/v1/agent-cards/:id/allowances', ({ principal, params }) => cards.allowances(principal, params.id), {
      permission: 'card:read',
      params: CardParams,
      detail: doc({
        summary: "A card's allowances",
        tags,
        permission: 'card:read',
        errors: [404],
        response: T.Array(Allowance),
      }),
    })
    .get('/v1/agent-cards/:id/redemptions', ({ principal, params }) => cards.redemptions(principal, params.id), {
      permission: 'card:read',
      params: CardParams,
      detail: doc({
        summary: "A card's disclosures and their redemptions (the audit)",
        tags,
        permission: 'card:read',
        errors: [404],
        response: T.Array(T.Record(T.String(), T.Any())),
      }),
    })
    .post(
      '/v1/agent-cards/:id/disclosure',
      ({ principal, params, request }) => cards.disclose(principal, params.id, request.headers.get('x-run-id')),
      {
        // The permission (card:disclose) is checked by the service, so that its refusal is the same 403 as every other.
        authenticated: true,
        params: CardParams,
        detail: doc({
          summary: 'Mint a one-time disclosure handle for a card a person has allowed',
          description:
            'Needs card:disclose (checked with the other refusals). Answers { cardId, handle, expiresAt }. The handle is redeemed once, before it expires, in an http-request node to an allowed merchant: {{$card.<handle>.number}}, .expMonth, .expYear, .cvc, .holderName. Every refusal is the same 403, never 404.',
          tags,
          errors: [403],
          response: T.Object({ cardId: T.String(), handle: T.String(), expiresAt: T.String() }),
        }),
      },
    )
}
