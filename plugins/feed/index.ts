/**
 * Feeds: the `feed-item` polling trigger starts one run per new RSS or Atom item. Written with
 * the SDK alone; the host keeps the cursor and the seen items, so each item starts exactly one
 * run across restarts and processes, and the first poll only records what is already there
 * (unless `fireExisting` is set).
 */
import { definePlugin, defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'
import { parseFeed } from './parse.ts'

const FeedItemBody = Type.Object({
  id: Type.String({ description: 'The item id (guid or Atom id), else its link' }),
  title: Type.Union([Type.String(), Type.Null()]),
  link: Type.Union([Type.String(), Type.Null()]),
  published: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  summary: Type.Union([Type.String(), Type.Null()]),
  feedUrl: Type.String(),
})

export const feedItem = defineTrigger({
  type: 'feed-item',
  name: 'New feed item',
  description: 'Starts a run for each new item of an RSS or Atom feed',
  platform: 'feed',
  tags: ['feed', 'rss', 'atom', 'polling'],
  payload: Type.Object({
    url: Type.String({ format: 'uri', description: 'The feed URL (http or https)' }),
    intervalSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Seconds between polls (default 300); the server polls no more often than its floor (10 s by default)',
      }),
    ),
    fireExisting: Type.Optional(
      Type.Boolean({ description: 'Start a run for the items already in the feed when the trigger is enabled' }),
    ),
  }),
  result: TriggerEvent(FeedItemBody),
  poll: {
    intervalMs: (config) => (config.intervalSeconds ?? 300) * 1000,
    async poll(ctx) {
      const cursor = (ctx.cursor ?? {}) as { etag?: string; lastModified?: string }
      const headers: Record<string, string> = {
        accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5',
      }
      if (cursor.etag) headers['if-none-match'] = cursor.etag
      if (cursor.lastModified) headers['if-modified-since'] = cursor.lastModified
      const response = await ctx.http.send({ method: 'GET', url: ctx.payload.url, headers })
      if (response.status === 304) return { items: [] }
      if (response.status >= 400) throw new Error(`the feed answered ${response.status}`)
      const items = parseFeed(response.body).map((item) => ({
        key: item.id,
        body: { ...item, feedUrl: ctx.payload.url },
      }))
      const next = { etag: response.headers.etag, lastModified: response.headers['last-modified'] }
      return { items, cursor: next.etag || next.lastModified ? next : null }
    },
  },
})

export default definePlugin({
  id: 'feed',
  name: 'Feeds',
  version: '1.0.0',
  description: 'RSS and Atom feeds: a run for every new item.',
  triggers: [feedItem],
})
