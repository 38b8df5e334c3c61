/** The messenger platform (`messenger`): a bot in chats and channels. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'messenger',
  name: 'Messenger bot',
  description: 'A bot of the messenger platform; its token reads and answers chats.',
  provider: 'Messenger platform',
  tags: ['chat'],
  data: Type.Object({
    botToken: Secret({ description: "the bot's token" }),
    botUsername: Type.Optional(Type.String()),
  }),
})

const User = Type.Object({
  id: Type.String(),
  username: Type.Optional(Type.String()),
  firstName: Type.Optional(Type.String()),
})
const Chats = Type.Optional(
  Type.Array(Type.String({ minLength: 1 }), { description: 'only these chat ids; default all' }),
)
const common = { tags: ['chat', 'messenger'], platform: 'messenger', connector: { type: 'messenger' } } as const

const channel = defineTrigger({
  ...common,
  type: 'messenger-channel',
  name: 'New message',
  description: 'A message is posted in a chat, group or channel the bot is in.',
  payload: Type.Object({ chatIds: Chats, textContains: Type.Optional(Type.String({ minLength: 1 })) }),
  result: TriggerEvent(
    Type.Object({
      chatId: Type.String(),
      chatType: Type.Union([
        Type.Literal('private'),
        Type.Literal('group'),
        Type.Literal('supergroup'),
        Type.Literal('channel'),
      ]),
      messageId: Type.Integer(),
      from: Type.Optional(User),
      text: Type.String(),
      date: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ chatId: Type.Optional(Type.String()), 'from.id': Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (!config.chatIds?.length || config.chatIds.includes(body.chatId)) &&
    (config.textContains === undefined || body.text.toLowerCase().includes(config.textContains.toLowerCase())),
})

const interaction = defineTrigger({
  ...common,
  type: 'messenger-new-interaction-event',
  name: 'Button pressed',
  description: 'Someone presses an inline button of a bot message.',
  payload: Type.Object({
    chatIds: Chats,
    data: Type.Optional(Type.String({ description: 'only this callback data' })),
  }),
  result: TriggerEvent(
    Type.Object({
      callbackId: Type.String(),
      chatId: Type.String(),
      messageId: Type.Integer(),
      from: User,
      data: Type.String(),
    }),
  ),
  waitPayload: Type.Object({
    chatId: Type.Optional(Type.String()),
    messageId: Type.Optional(Type.Integer()),
    data: Type.Optional(Type.String()),
  }),
  matches: (config, { body }) =>
    (!config.chatIds?.length || config.chatIds.includes(body.chatId)) &&
    (config.data === undefined || config.data === body.data),
})

export default definePlugin({
  id: 'messenger',
  name: 'Messenger',
  version: '1.0.0',
  connector,
  triggers: [channel, interaction],
})
