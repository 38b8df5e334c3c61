/**
 * The chatapp-* trigger types. The chat platform's events webhook (POST
 * /v1/integrations/chatapp/events) routes each event by its team to the organizations holding a
 * chatapp connector for that team, then to the matching triggers below. A connector that names the
 * platform's API (`apiBaseUrl`) gets an event subscription per live trigger (subscription.ts).
 */
import { defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'
import { channelOptions } from './channels.ts'
import { Channels, ChatMessage, ChatWait, inChannels, TAGS } from './schemas.ts'
import { chatappSubscription } from './subscription.ts'

const common = {
  platform: 'chatapp',
  connector: { type: 'chatapp' },
  waitPayload: ChatWait,
  ...chatappSubscription,
} as const
/** The team's channels offered for `channelIds` (dynamic options). */
const channelPicker = { channelIds: channelOptions }

export const mentions = defineTrigger({
  ...common,
  type: 'chatapp-mentions',
  options: channelPicker,
  name: 'App mentioned',
  description: 'Someone mentions the app in a channel.',
  tags: [...TAGS, 'mention'],
  payload: Type.Object({ channelIds: Channels }),
  result: TriggerEvent(ChatMessage),
  matches: (config, { body }) => inChannels(config.channelIds, body.channelId),
})

export const newReactionAdded = defineTrigger({
  ...common,
  type: 'chatapp-new-reaction-added',
  options: channelPicker,
  name: 'New reaction',
  description: 'Someone adds a reaction (emoji) to a message.',
  tags: [...TAGS, 'reaction'],
  payload: Type.Object({
    channelIds: Channels,
    reaction: Type.Optional(Type.String({ minLength: 1, description: 'only this emoji name, e.g. thumbsup' })),
  }),
  result: TriggerEvent(
    Type.Object({
      teamId: Type.String(),
      channelId: Type.String(),
      userId: Type.String(),
      reaction: Type.String(),
      itemTs: Type.String({ description: 'the message reacted to' }),
      itemUserId: Type.Optional(Type.String()),
      ts: Type.String(),
    }),
  ),
  matches: (config, { body }) =>
    inChannels(config.channelIds, body.channelId) &&
    (config.reaction === undefined || config.reaction === body.reaction),
})

export const newMessageInChannels = defineTrigger({
  ...common,
  type: 'chatapp-new-message-in-channels',
  options: channelPicker,
  name: 'New message in channels',
  description: "A message is posted in a channel the app is in (bots' messages only when asked).",
  tags: [...TAGS, 'message'],
  payload: Type.Object({ channelIds: Channels, includeBots: Type.Optional(Type.Boolean({ default: false })) }),
  result: TriggerEvent(ChatMessage),
  matches: (config, { body }) =>
    inChannels(config.channelIds, body.channelId) && (config.includeBots === true || body.botId === undefined),
})

export const newChannelCreated = defineTrigger({
  ...common,
  type: 'chatapp-new-channel-created',
  name: 'New channel',
  description: 'A channel is created in the team.',
  tags: [...TAGS, 'channel'],
  payload: Type.Object({ namePrefix: Type.Optional(Type.String({ minLength: 1 })) }),
  result: TriggerEvent(
    Type.Object({
      teamId: Type.String(),
      channelId: Type.String(),
      name: Type.String(),
      creatorId: Type.String(),
      createdAt: Type.String({ format: 'date-time' }),
    }),
  ),
  matches: (config, { body }) => config.namePrefix === undefined || body.name.startsWith(config.namePrefix),
})

export const newDirectMessage = defineTrigger({
  ...common,
  type: 'chatapp-new-direct-message',
  name: 'New direct message',
  description: 'Someone sends the app a direct message.',
  tags: [...TAGS, 'message', 'direct'],
  payload: Type.Object({
    userIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'only from these users' })),
  }),
  result: TriggerEvent(ChatMessage),
  matches: (config, { body }) => !config.userIds?.length || config.userIds.includes(body.userId),
})

export const newKeywordMention = defineTrigger({
  ...common,
  type: 'chatapp-new-keyword-mention',
  options: channelPicker,
  name: 'Keyword mentioned',
  description: 'A message contains one of the keywords (ignoring case unless asked).',
  tags: [...TAGS, 'message', 'keyword'],
  payload: Type.Object({
    keywords: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 50 }),
    channelIds: Channels,
    caseSensitive: Type.Optional(Type.Boolean({ default: false })),
  }),
  result: TriggerEvent(ChatMessage),
  matches(config, { body }) {
    if (!inChannels(config.channelIds, body.channelId)) return false
    const text = config.caseSensitive ? body.text : body.text.toLowerCase()
    return config.keywords.some((k) => text.includes(config.caseSensitive ? k : k.toLowerCase()))
  },
})

export const newUserAdded = defineTrigger({
  ...common,
  type: 'chatapp-new-user-added',
  name: 'New user',
  description: 'A user joins the team.',
  tags: [...TAGS, 'user'],
  payload: Type.Object({}),
  result: TriggerEvent(
    Type.Object({
      teamId: Type.String(),
      userId: Type.String(),
      name: Type.String(),
      realName: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      isBot: Type.Boolean(),
    }),
  ),
})

export const newUserMention = defineTrigger({
  ...common,
  type: 'chatapp-new-user-mention',
  options: channelPicker,
  name: 'User mentioned',
  description: 'A message mentions one of the given users.',
  tags: [...TAGS, 'mention', 'user'],
  payload: Type.Object({
    userIds: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 50 }),
    channelIds: Channels,
  }),
  result: TriggerEvent(Type.Composite([ChatMessage, Type.Object({ mentionedUserIds: Type.Array(Type.String()) })])),
  matches: (config, { body }) =>
    inChannels(config.channelIds, body.channelId) && body.mentionedUserIds.some((u) => config.userIds.includes(u)),
})

export const newInteractionEvent = defineTrigger({
  ...common,
  type: 'chatapp-new-interaction-event',
  name: 'Interaction',
  description: 'Someone clicks a button, picks a menu option or submits a dialog of the app.',
  tags: [...TAGS, 'interaction'],
  payload: Type.Object({
    actionIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'only these action ids' })),
  }),
  result: TriggerEvent(
    Type.Object({
      teamId: Type.String(),
      type: Type.String({ description: 'block_actions, view_submission …' }),
      actionId: Type.String(),
      userId: Type.String(),
      channelId: Type.Optional(Type.String()),
      value: Type.Optional(Type.Any()),
      messageTs: Type.Optional(Type.String()),
      responseUrl: Type.Optional(Type.String()),
      triggerId: Type.Optional(Type.String()),
    }),
  ),
  waitPayload: Type.Object({
    actionId: Type.Optional(Type.String()),
    userId: Type.Optional(Type.String()),
    messageTs: Type.Optional(Type.String()),
  }),
  matches: (config, { body }) => !config.actionIds?.length || config.actionIds.includes(body.actionId),
})

export const chatappTriggers = [
  mentions,
  newReactionAdded,
  newMessageInChannels,
  newChannelCreated,
  newDirectMessage,
  newKeywordMention,
  newUserAdded,
  newUserMention,
  newInteractionEvent,
]
