/**
 * A workflow's polling triggers in the console (Debian's chromium, puppeteer-core, a server
 * process and a local RSS feed): the workflow page shows what the trigger remembers and its last
 * poll, and its reset makes the next poll start afresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { CHROMIUM, openSignedInConsole, type SignedInConsole, testid as id } from '../helpers/console.ts'
import { startFeed, type TestFeed } from '../helpers/feed.ts'
import { until } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_polls_console_bootstrap_key_0123456789ab'

if (!CHROMIUM) warnSkipped('the polling triggers console test', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('polling triggers in the console (chromium)', () => {
    let c: SignedInConsole
    let feed: TestFeed
    const call = (method: string, path: string, body?: unknown) => c.call(method, path, body)

    beforeAll(async () => {
      feed = startFeed()
      c = await openSignedInConsole({
        key: KEY,
        env: { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1', AUTOMATON_POLL_MIN_INTERVAL_MS: '1000' },
      })
    }, 90_000)

    afterAll(async () => {
      await c?.close()
      feed?.stop()
    })

    it('shows what a feed trigger remembers, and resets it', async () => {
      feed.add('a', 'b', 'c')
      const created = await call('POST', '/v1/workflows', {
        name: 'News',
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'feed-item', payload: { url: feed.url, intervalSeconds: 1 }, children: ['say'] },
            say: { type: 'log', payload: { message: '{{root.result.body.title}}' } },
          },
        },
      })
      expect(created.body).toMatchObject({ code: 200 })
      const workflowId = created.body.data.id as string
      expect((await call('POST', `/v1/workflows/${workflowId}/publish`)).status).toBe(200)
      const polls = async () => (await call('GET', `/v1/workflows/${workflowId}/polls`)).body.data.triggers[0]
      await until('the first poll', async () => (await polls())?.primed || undefined)

      await c.page.goto(`${c.server.url}/workflows/${workflowId}`)
      const row = id('poll:root')
      await c.page.waitForSelector(row)
      const shown = await c.page.$eval(row, (e) => e.textContent ?? '')
      expect(shown).toContain('feed-item')
      expect(shown).toContain('3 items, 0 runs')

      const answered = c.page.waitForResponse((r) => r.url().endsWith(`/v1/workflows/${workflowId}/polls/root/reset`))
      await c.page.click(id('poll-reset:root'))
      const reset = await answered
      expect(reset.status()).toBe(200)
      expect((await reset.json()).data).toMatchObject({ primed: false, seenKeys: 0 })
      // The next poll records the items again and starts no run for them.
      await until('the poll after the reset', async () => ((await polls())?.seenKeys === 3 ? true : undefined))
      expect((await call('GET', `/v1/workflows/${workflowId}/runs`)).body.data.items).toEqual([])
      expect(c.problems).toEqual([])
      await c.page.screenshot({
        path: join(import.meta.dir, '..', '..', 'docs', 'console', 'polls.png') as `${string}.png`,
      })
    }, 60_000)
  })
