/**
 * The workflow editor's accessibility, checked by axe-core in a real browser (Debian's chromium
 * through puppeteer-core, a real server on the embedded store): the editor page, with a node's
 * panel open and with the palette searched, has no serious or critical violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { buildConsole } from '../../console/build.ts'
import { api, ROOT, runCli, type ServerProcess, startServer } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const CHROMIUM = process.env.AUTOMATON_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null)
const KEY = 'svcsk_editor_axe_bootstrap_key_0123456789abcdefgh'
const EMAIL = 'grace@example.com'
const PASSWORD = 'correct horse battery staple'
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

/** Runs axe-core in the page (injected through the debugging protocol, which the page's CSP does not govern). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE)
  const violations = (await page.evaluate(() =>
    (window as any).axe.run(document, { resultTypes: ['violations'] }).then((r: any) => r.violations),
  )) as Violation[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

if (!CHROMIUM)
  warnSkipped('the editor accessibility check in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe("the workflow editor's accessibility", () => {
    const dir = tempDir('automaton-editor-axe-')
    let server: ServerProcess
    let browser: Browser
    let page: Page
    let workflowId = ''

    beforeAll(async () => {
      await buildConsole()
      const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_BOOTSTRAP_KEY: KEY }
      server = await startServer({ env })
      const me = await api(server.url, 'GET', '/v1/me', KEY)
      const passwordFile = join(dir.path, 'password')
      writeFileSync(passwordFile, `${PASSWORD}\n`)
      const user = ['users', 'create', '--email', EMAIL, '--org', me.body.data.organizationId, '--name', 'Grace']
      expect((await runCli([...user, '--password-file', passwordFile], env)).code).toBe(0)
      const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
        name: 'Big orders',
        definition: BIG_ORDERS,
      })
      workflowId = created.body.data.id
      browser = await puppeteer.launch({
        executablePath: CHROMIUM!,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      })
      page = await browser.newPage()
      await page.setViewport({ width: 1440, height: 900 })
      page.setDefaultTimeout(30_000)
      await page.goto(`${server.url}/signin`)
      await page.type('input[name=email]', EMAIL)
      await page.type('input[name=password]', PASSWORD)
      await page.click('button[type=submit]')
      await page.waitForSelector('nav.top')
    }, 90_000)

    afterAll(async () => {
      await browser?.close()
      await server?.stop('SIGKILL')
      dir.remove()
    })

    it('has no serious or critical violation with a node selected and its panel open', async () => {
      await page.goto(`${server.url}/workflows/${workflowId}`)
      await page.waitForSelector(id('node:big'), { visible: true })
      await page.$eval(id('node:big'), (e) => (e as HTMLElement).focus())
      await page.keyboard.press('Enter')
      await page.waitForSelector(id('field:/payload/message'), { visible: true })
      expect(await seriousViolations(page)).toEqual([])
    }, 60_000)

    it('has no serious or critical violation with the palette searched', async () => {
      await page.goto(`${server.url}/workflows/${workflowId}`)
      await page.waitForSelector(id('palette-search'), { visible: true })
      await page.type(id('palette-search'), 'log')
      await page.waitForSelector(id('palette:log'), { visible: true })
      expect(await seriousViolations(page)).toEqual([])
    }, 60_000)
  })
