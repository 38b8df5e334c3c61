/**
 * A local RSS feed for polling tests: items are added while it serves, an ETag follows its
 * content, and a response can be held back (a slow platform) or fail (a platform that is down).
 */
export interface FeedItemSpec {
  id: string
  title: string
  /** Milliseconds since the epoch. */
  published: number
}

export interface TestFeed {
  readonly url: string
  add(...ids: string[]): void
  readonly items: FeedItemSpec[]
  /** Holds every response until the returned function is called. */
  hold(): () => void
  /** Answers this status until called again with null. */
  failWith(status: number | null): void
  /** Requests served so far, and those with a matching If-None-Match answered 304. */
  readonly requests: number
  readonly notModified: number
  stop(): void
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')

export function startFeed(): TestFeed {
  const items: FeedItemSpec[] = []
  let gate: Promise<void> | null = null
  let failing: number | null = null
  let requests = 0
  let notModified = 0
  let clock = Date.parse('2026-01-01T00:00:00Z')
  const etag = () => `"${items.length}"`
  const document = () =>
    `<?xml version="1.0"?><rss version="2.0"><channel><title>Test &amp; feed</title>${[...items]
      .reverse()
      .map(
        (i) =>
          `<item><title>${escapeXml(i.title)}</title><link>https://example.org/${i.id}</link><guid>${i.id}</guid><pubDate>${new Date(i.published).toUTCString()}</pubDate></item>`,
      )
      .join('')}</channel></rss>`
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      requests++
      if (gate) await gate
      if (failing !== null) return new Response('down', { status: failing })
      if (request.headers.get('if-none-match') === etag()) {
        notModified++
        return new Response(null, { status: 304 })
      }
      return new Response(document(), { headers: { 'content-type': 'application/rss+xml', etag: etag() } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/feed.xml`,
    items,
    add(...ids) {
      for (const id of ids) items.push({ id, title: `Item <${id}> & more`, published: (clock += 60_000) })
    },
    hold() {
      let release!: () => void
      gate = new Promise((r) => {
        release = r
      })
      return () => {
        gate = null
        release()
      }
    },
    failWith(status) {
      failing = status
    },
    get requests() {
      return requests
    },
    get notModified() {
      return notModified
    },
    stop: () => server.stop(true),
  }
}
