/** The decentralized social network (`social`): casts, followers, reactions. Public data, no connector. Catalog only until its integration arrives. */
import { definePlugin, defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const Fid = Type.Integer({ minimum: 1, description: 'the account id' })
const common = { tags: ['social'], platform: 'social', connector: null } as const

const newCast = defineTrigger({
  ...common,
  type: 'social-new-cast',
  name: 'New cast',
  description: 'A post (cast) is published: by an account, in a channel, or containing a keyword.',
  payload: Type.Object({
    fid: Type.Optional(Fid),
    channel: Type.Optional(Type.String({ minLength: 1 })),
    keyword: Type.Optional(Type.String({ minLength: 1 })),
  }),
  result: TriggerEvent(
    Type.Object({
      hash: Type.String(),
      fid: Fid,
      username: Type.String(),
      text: Type.String(),
      channel: Type.Optional(Type.String()),
      parentHash: Type.Optional(Type.String()),
      embeds: Type.Array(Type.String()),
      timestamp: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ fid: Type.Optional(Fid), parentHash: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (config.fid === undefined || body.fid === config.fid) &&
    (config.channel === undefined || body.channel === config.channel) &&
    (config.keyword === undefined || body.text.toLowerCase().includes(config.keyword.toLowerCase())),
})

const newFollower = defineTrigger({
  ...common,
  type: 'social-new-follower',
  name: 'New follower',
  description: 'An account gains a follower.',
  payload: Type.Object({ fid: Fid }),
  result: TriggerEvent(
    Type.Object({
      fid: Fid,
      followerFid: Fid,
      followerUsername: Type.String(),
      timestamp: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ followerFid: Type.Optional(Fid) }),
  matches: (config, { body }) => body.fid === config.fid,
})

const newReaction = defineTrigger({
  ...common,
  type: 'social-new-reaction',
  name: 'New reaction',
  description: 'A cast is liked or recast: any cast of an account, or one cast.',
  payload: Type.Object({
    fid: Type.Optional(Fid),
    castHash: Type.Optional(Type.String({ minLength: 1 })),
    reactionType: Type.Optional(Type.Union([Type.Literal('like'), Type.Literal('recast')])),
  }),
  result: TriggerEvent(
    Type.Object({
      castHash: Type.String(),
      castFid: Fid,
      reactionType: Type.Union([Type.Literal('like'), Type.Literal('recast')]),
      fid: Fid,
      username: Type.String(),
      timestamp: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ castHash: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (config.fid === undefined || body.castFid === config.fid) &&
    (config.castHash === undefined || body.castHash === config.castHash) &&
    (config.reactionType === undefined || body.reactionType === config.reactionType),
})

export default definePlugin({
  id: 'social',
  name: 'Social network',
  version: '1.0.0',
  triggers: [newCast, newFollower, newReaction],
})
