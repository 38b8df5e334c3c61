/**
 * The workflow editor's accessibility, checked by axe-core in a real browser (Debian's chromium
 * through puppeteer-core, a real server on the embedded store): the editor page, with a node's
 * panel open and with the palette searched, has no violation of any impact, minor ones included.
 */
import { beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import { ROOT } from '../helpers/process.ts'
import { BIG_ORDERS, CHROMIUM, createWorkflowIn, signedInConsoleForTests, testid as id } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_editor_axe_bootstrap_key_0123456789abcdefgh'
const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')

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
    const c = signedInConsoleForTests({ key: KEY, name: 'Grace' })
    let workflowId = ''

    beforeAll(async () => {
      workflowId = await createWorkflowIn(c, 'Big orders', BIG_ORDERS)
    })

    it('has no violation with a node selected and its panel open', async () => {
      const { page } = c
      await page.goto(`${c.server.url}/workflows/${workflowId}`)
      await page.waitForSelector(id('node:big'), { visible: true })
      await page.$eval(id('node:big'), (e) => (e as HTMLElement).focus())
      await page.keyboard.press('Enter')
      await page.waitForSelector(id('field:/payload/message'), { visible: true })
      expect(await violations(page)).toEqual([])
    }, 60_000)

    it('has no violation with the palette searched', async () => {
      const { page } = c
      await page.goto(`${c.server.url}/workflows/${workflowId}`)
      await page.waitForSelector(id('palette-search'), { visible: true })
      await page.type(id('palette-search'), 'log')
      await page.waitForSelector(id('palette:log'), { visible: true })
      expect(await violations(page)).toEqual([])
    }, 60_000)
  })
