/**
 * A workflow's polling triggers in the console (Debian's chromium, puppeteer-core, a server
 * process and a local RSS feed): the workflow page shows what the trigger remembers and its last
 * poll, and its reset makes the next poll start afresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { buildConsole } from '../../console/build.ts'
import { startFeed, type TestFeed } from '../helpers/feed.ts'
import { api, runCli, type ServerProcess, startServer, until } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const CHROMIUM = process.env.AUTOMATON_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null)
const KEY = 'svcsk_polls_console_bootstrap_key_0123456789ab'
const EMAIL = 'ada@example.com'
const PASSWORD = 'correct horse battery staple'
const id = (testid: string) => `[data-testid="${testid}"]`

if (!CHROMIUM) warnSkipped('the polling triggers console test', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('polling triggers in the console (chromium)', () => {
    const dir = tempDir('automaton-polls-console-')
    let server: ServerProcess
    let browser: Browser
    let page: Page
    let feed: TestFeed
    const problems: string[] = []
    const call = (method: string, path: string, body?: unknown) => api(server.url, method, path, KEY, body)

    beforeAll(async () => {
      await buildConsole()
      feed = startFeed()
      const env = {
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_BOOTSTRAP_KEY: KEY,
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1',
        AUTOMATON_POLL_MIN_INTERVAL_MS: '1000',
      }
      server = await startServer({ env })
      const me = await call('GET', '/v1/me')
      const passwordFile = join(dir.path, 'password')
      writeFileSync(passwordFile, `${PASSWORD}\n`)
      const user = ['users', 'create', '--email', EMAIL, '--org', me.body.data.organizationId, '--name', 'Ada']
      expect((await runCli([...user, '--password-file', passwordFile], env)).code).toBe(0)
      browser = await puppeteer.launch({
        executablePath: CHROMIUM!,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      })
      page = await browser.newPage()
      page.setDefaultTimeout(30_000)
      page.on('dialog', (dialog) => void dialog.accept())
      page.on('pageerror', (error) => problems.push(`page: ${error}`))
      page.on('console', (m) => {
        if (m.type() === 'error' && !/status of 4(00|01|04|12)\b/.test(m.text())) problems.push(`console: ${m.text()}`)
      })
      await page.goto(`${server.url}/signin`)
      await page.type('input[name=email]', EMAIL)
      await page.type('input[name=password]', PASSWORD)
      await page.click('button[type=submit]')
      await page.waitForSelector('nav.top')
    }, 90_000)

    afterAll(async () => {
      await browser?.close()
      await server?.stop('SIGKILL')
      feed?.stop()
      dir.remove()
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

      await page.goto(`${server.url}/workflows/${workflowId}`)
      const row = id('poll:root')
      await page.waitForSelector(row)
      const shown = await page.$eval(row, (e) => e.textContent ?? '')
      expect(shown).toContain('feed-item')
      expect(shown).toContain('3 items, 0 runs')

      const answered = page.waitForResponse((r) => r.url().endsWith(`/v1/workflows/${workflowId}/polls/root/reset`))
      await page.click(id('poll-reset:root'))
      const reset = await answered
      expect(reset.status()).toBe(200)
      expect((await reset.json()).data).toMatchObject({ primed: false, seenKeys: 0 })
      // The next poll records the items again and starts no run for them.
      await until('the poll after the reset', async () => ((await polls())?.seenKeys === 3 ? true : undefined))
      expect((await call('GET', `/v1/workflows/${workflowId}/runs`)).body.data.items).toEqual([])
      expect(problems).toEqual([])
      await page.screenshot({
        path: join(import.meta.dir, '..', '..', 'docs', 'console', 'polls.png') as `${string}.png`,
      })
    }, 60_000)
  })
