/**
 * The workflow editor's accessibility, checked by axe-core in a real browser (Debian's chromium
 * through puppeteer-core, a real server on the embedded store): the editor page, with a node's
 * panel open and with the palette searched, has no violation of any impact, minor ones included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { ROOT, type ServerProcess } from '../helpers/process.ts'
import { CHROMIUM, openSignedInConsole, type SignedInConsole } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_editor_axe_bootstrap_key_0123456789abcdefgh'
const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')
const id = (testid: string) => `[data-testid="${testid}"]`

/** The README's "Big orders" workflow: a manual trigger, an `if` on the amount, a `log` on each branch. */
const BIG_ORDERS = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['check'] },
    check: {
      type: 'if',
      payload: { condition: { $and: [{ '{{root.result.body.amount}}': { $gt: 100 } }] } },
      children: ['big', 'small'],
    },
    big: { type: 'log', branch: 'then', payload: { message: 'big order {{root.result.body.amount}}' } },
    small: { type: 'log', branch: 'else', payload: { message: 'small order' } },
  },
}

interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/**
 * Runs axe-core in the page (injected through the debugging protocol, which the page's CSP does
 * not govern) and answers its violations of every impact, minor ones included.
 */
async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE)
  const found = (await page.evaluate(() =>
    (window as any).axe.run(document, { resultTypes: ['violations'] }).then((r: any) => r.violations),
  )) as Violation[]
  return found.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

if (!CHROMIUM)
  warnSkipped('the editor accessibility check in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe("the workflow editor's accessibility", () => {
    let c: SignedInConsole
    let server: ServerProcess
    let browser: Browser
    let page: Page
    let workflowId = ''

    beforeAll(async () => {
      c = await openSignedInConsole({ key: KEY, name: 'Grace' })
      ;({ server, browser, page } = c)
      const created = await c.call('POST', '/v1/workflows', { name: 'Big orders', definition: BIG_ORDERS })
      workflowId = created.body.data.id
    }, 90_000)

    afterAll(async () => {
      await c?.close()
    })

    it('has no violation with a node selected and its panel open', async () => {
      await page.goto(`${server.url}/workflows/${workflowId}`)
      await page.waitForSelector(id('node:big'), { visible: true })
      await page.$eval(id('node:big'), (e) => (e as HTMLElement).focus())
      await page.keyboard.press('Enter')
      await page.waitForSelector(id('field:/payload/message'), { visible: true })
      expect(await violations(page)).toEqual([])
    }, 60_000)

    it('has no violation with the palette searched', async () => {
      await page.goto(`${server.url}/workflows/${workflowId}`)
      await page.waitForSelector(id('palette-search'), { visible: true })
      await page.type(id('palette-search'), 'log')
      await page.waitForSelector(id('palette:log'), { visible: true })
      expect(await violations(page)).toEqual([])
    }, 60_000)
  })
