/**
 * The console's first-hour details in chromium (issue 37): the sign-in page asks for no session
 * it has no reason to expect, so a visit logs no 401; a signed-in browser keeps its session across
 * a reload and forgets it on signing out; and the x402 import form sends the method and body a
 * seller wants (an Automaton seller answers GET with 404 and POST with 402), paying once on the
 * devnet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'puppeteer-core'
import type { Devnet } from '../../adapters/evm/devnet.ts'
import { createSolcCompiler } from '../../adapters/solc/compiler.ts'
import { CHROMIUM, openSignedInConsole, PASSWORD, type SignedInConsole } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'
import { chainsOf, startTestDevnet, x402Payer } from '../helpers/x402.ts'

const KEY = 'svcsk_first_hour_console_bootstrap_key_0123456'
const PRICE = '25000'
/** Every answer but a 401 is a problem here: the sign-in page must not provoke one. */
const NOT_401 = /status of 4(00|04|12)\b/

/** The paths of the session requests a page makes while `act` runs. */
async function sessionRequests(page: Page, act: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  const listen = (r: { url(): string }) => {
    if (new URL(r.url()).pathname === '/v1/auth/session') seen.push(r.url())
  }
  page.on('request', listen)
  try {
    await act()
  } finally {
    page.off('request', listen)
  }
  return seen
}

if (!CHROMIUM) warnSkipped('the first-hour console test', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('the first hour in the console (chromium)', () => {
    let c: SignedInConsole
    let devnet: Devnet
    const compiler = createSolcCompiler()

    beforeAll(async () => {
      devnet = await startTestDevnet(compiler)
      c = await openSignedInConsole({
        key: KEY,
        expectedStatuses: NOT_401,
        acceptDialogs: true,
        env: {
          AUTOMATON_CHAINS: chainsOf(devnet),
          AUTOMATON_X402_RELAYER_KEY: devnet.accounts[0].privateKey,
          // The import calls this installation's own paid workflow over HTTP, on 127.0.0.1.
          AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        },
      })
    }, 120_000)

    afterAll(async () => {
      await c?.close()
      await devnet?.stop()
      await compiler.close()
    })

    it('visits the sign-in page without asking for a session, and keeps a session it has', async () => {
      const fresh = await c.browser.createBrowserContext()
      try {
        const stranger = await fresh.newPage()
        const errors: string[] = []
        stranger.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text())
        })
        const asked = await sessionRequests(stranger, async () => {
          await stranger.goto(`${c.server.url}/signin`)
          await stranger.waitForSelector('input[name=password]')
        })
        expect(asked).toEqual([])
        expect(errors).toEqual([])
      } finally {
        await fresh.close()
      }
      // The signed-in browser asks, and stays signed in across a reload.
      const kept = await sessionRequests(c.page, async () => {
        await c.page.reload()
        await c.page.waitForSelector('nav.top')
      })
      expect(kept.length).toBeGreaterThan(0)
      expect(c.problems).toEqual([])
    })

    it('forgets the session on signing out: the next visit asks for none', async () => {
      await c.page.goto(`${c.server.url}/`)
      await c.page.waitForSelector('nav.top')
      const [signOut] = await c.page.$$('xpath/.//nav//button[normalize-space()="Sign out"]')
      await signOut.click()
      await c.page.waitForSelector('input[name=password]')
      const asked = await sessionRequests(c.page, async () => {
        await c.page.goto(`${c.server.url}/signin`)
        await c.page.waitForSelector('input[name=password]')
      })
      expect(asked).toEqual([])
      await c.page.type('input[name=email]', 'ada@example.com')
      await c.page.type('input[name=password]', PASSWORD)
      await c.page.click('button[type=submit]')
      await c.page.waitForSelector('nav.top')
      expect(c.problems).toEqual([])
    })

    it('imports a POST-only seller with the method and body of the form, paying once', async () => {
      const recipient = devnet.accounts[3].address
      const seller = await c.call('POST', '/v1/workflows', {
        name: 'Quote',
        x402Config: { chainId: devnet.chainId, price: PRICE, token: devnet.token, recipient, discoverable: true },
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['say'] },
            say: { type: 'log', payload: { message: 'quote {{root.result.body.symbol}}' } },
          },
        },
      })
      expect(seller.status).toBe(200)
      expect((await c.call('POST', `/v1/workflows/${seller.body.data.id}/publish`)).status).toBe(200)
      const wallet = await c.call('POST', '/v1/wallets', {
        name: 'buyer',
        privateKey: devnet.accounts[1].privateKey,
      })
      expect(wallet.status).toBe(200)
      const { balanceOf } = x402Payer(devnet, devnet.accounts[1].privateKey, { to: recipient, value: PRICE })
      const before = await balanceOf(wallet.body.data.address)
      const resourceUrl = `${c.server.url}/v1/x402/workflows/${seller.body.data.id}`

      await c.page.goto(`${c.server.url}/x402`)
      await c.page.waitForSelector('input[name=import-url]')
      await c.page.type('input[name=import-url]', resourceUrl)
      await c.page.select('select[name=import-method]', 'POST')
      await c.page.type('input[name=import-body]', '{"symbol": "ETH"}')
      const sent = c.page.waitForRequest((r) => r.url().endsWith('/v1/x402-endpoints/import'))
      await c.page.click('form.inline button[type=submit]')
      expect(JSON.parse((await sent).postData() ?? '{}')).toEqual({
        resourceUrl,
        method: 'POST',
        body: { symbol: 'ETH' },
      })
      await c.page.waitForSelector('p.notice[role=status]', { timeout: 60_000 })
      const notice = await c.page.$eval('p.notice[role=status]', (e) => e.textContent ?? '')
      expect(notice).toContain(`paid ${PRICE}`)
      const listed = (await c.call('GET', '/v1/x402-endpoints')).body.data.items
      expect(listed).toHaveLength(1)
      expect(listed[0]).toMatchObject({ method: 'POST', baseUrl: resourceUrl, defaultBody: { symbol: 'ETH' } })
      await c.page.waitForSelector(`tr[data-x402="${listed[0].id}"]`)
      const row = await c.page.$eval(`tr[data-x402="${listed[0].id}"]`, (e) => e.textContent ?? '')
      expect(row).toContain(`POST ${resourceUrl}`)
      expect(await balanceOf(wallet.body.data.address)).toBe(before - BigInt(PRICE))
      expect(c.problems).toEqual([])
    }, 90_000)
  })
