/** Shapes of chat platform events, and what chatapp-* trigger configurations share. */
import { Type } from '../../core/plugin/sdk.ts'

export const TAGS = ['chat', 'chatapp']

export const ChatMessage = Type.Object({
  teamId: Type.String(),
  channelId: Type.String(),
  channelType: Type.Optional(Type.Union([Type.Literal('channel'), Type.Literal('group'), Type.Literal('im')])),
  userId: Type.String(),
  text: Type.String(),
  ts: Type.String({ description: 'the message id (timestamp)' }),
  threadTs: Type.Optional(Type.String({ description: 'the thread the message is in' })),
  botId: Type.Optional(Type.String({ description: 'set when a bot wrote it' })),
})

export const Channels = Type.Optional(
  Type.Array(Type.String({ minLength: 1 }), { description: 'only these channel ids; default all' }),
)

/** Waiting on a chat event: by channel, user or thread. */
export const ChatWait = Type.Object({
  channelId: Type.Optional(Type.String()),
  userId: Type.Optional(Type.String()),
  threadTs: Type.Optional(Type.String()),
})

export const inChannels = (channels: readonly string[] | undefined, channelId: string) =>
  !channels?.length || channels.includes(channelId)
