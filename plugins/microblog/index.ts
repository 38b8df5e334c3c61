/** The microblogging service (`microblog`): new posts by an account or matching a search. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'microblog',
  name: 'Microblog API',
  description: 'An API token of the microblogging service, to read posts.',
  provider: 'Microblogging service',
  tags: ['social'],
  data: Type.Object({ bearerToken: Secret() }),
})

const newTweet = defineTrigger({
  type: 'microblog-new-tweet',
  name: 'New post',
  description: 'A post is published by an account, or matches a search query.',
  tags: ['social', 'microblog'],
  platform: 'microblog',
  connector: { type: 'microblog' },
  payload: Type.Object(
    {
      username: Type.Optional(Type.String({ minLength: 1, description: 'without the @' })),
      query: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      includeReplies: Type.Optional(Type.Boolean({ default: false })),
    },
    { minProperties: 1 },
  ),
  result: TriggerEvent(
    Type.Object({
      tweetId: Type.String(),
      authorId: Type.String(),
      username: Type.String(),
      text: Type.String(),
      url: Type.String(),
      inReplyToId: Type.Optional(Type.String()),
      query: Type.Optional(Type.String({ description: 'the query it matched' })),
      createdAt: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ username: Type.Optional(Type.String()), inReplyToId: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (config.username === undefined || body.username.toLowerCase() === config.username.toLowerCase()) &&
    (config.query === undefined || body.query === config.query) &&
    (config.includeReplies === true || body.inReplyToId === undefined),
})

export default definePlugin({ id: 'microblog', name: 'Microblog', version: '1.0.0', connector, triggers: [newTweet] })
