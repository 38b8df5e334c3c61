/** The hosted mail platform (`mailapp`): new messages, or messages matching a search. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'mailapp',
  name: 'Mail account',
  description: 'An account of the hosted mail platform, authorized by OAuth.',
  provider: 'Mail platform',
  tags: ['email'],
  data: Type.Object({
    address: Type.String({ minLength: 3 }),
    refreshToken: Secret({ description: 'the OAuth refresh token' }),
  }),
})

const Message = Type.Object({
  messageId: Type.String(),
  threadId: Type.String(),
  from: Type.String(),
  to: Type.Array(Type.String()),
  subject: Type.String(),
  snippet: Type.String(),
  text: Type.Optional(Type.String()),
  labelIds: Type.Array(Type.String()),
  receivedAt: Type.String({ format: 'date-time' }),
})
const common = {
  tags: ['email', 'mailapp'],
  platform: 'mailapp',
  connector: { type: 'mailapp' },
  waitPayload: Type.Object({ threadId: Type.Optional(Type.String()), from: Type.Optional(Type.String()) }),
} as const

const received = defineTrigger({
  ...common,
  type: 'mailapp-new-email-received',
  name: 'New e-mail',
  description: 'A new message arrives in the account (optionally with a label).',
  payload: Type.Object({
    labelIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'only with one of these labels' }),
    ),
  }),
  result: TriggerEvent(Message),
  matches: (config, { body }) => !config.labelIds?.length || config.labelIds.some((l) => body.labelIds.includes(l)),
})

const matchingSearch = defineTrigger({
  ...common,
  type: 'mailapp-new-email-matching-search',
  name: 'New e-mail matching a search',
  description:
    'A new message matches a search query of the platform (e.g. from:billing@ has:attachment); the platform evaluates the query.',
  payload: Type.Object({ query: Type.String({ minLength: 1, maxLength: 1000 }) }),
  result: TriggerEvent(
    Type.Composite([Message, Type.Object({ query: Type.String({ description: 'the query it matched' }) })]),
  ),
  matches: (config, { body }) => body.query === config.query,
})

export default definePlugin({
  id: 'mailapp',
  name: 'Mail platform',
  version: '1.0.0',
  connector,
  triggers: [received, matchingSearch],
})
