/**
 * The workflow editor in a real browser (Debian's chromium through puppeteer-core, a real server
 * on the embedded store), driven only through its stable hooks (`data-testid`): build the README's
 * "Big orders" workflow from an empty draft by mouse and keyboard, save it, have a second session's
 * save refuse the editor's stale one, reload and publish; rename a node and see references follow;
 * undo and redo; insert a node on an edge; copy and paste nodes between workflows. Screenshots
 * go to docs/console/editor-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { BUDGET, buildConsole, EDITOR_BUDGET } from '../../console/build.ts'
import { api, ROOT, runCli, type ServerProcess, startServer } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const CHROMIUM = process.env.AUTOMATON_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null)
const KEY = 'svcsk_editor_bootstrap_key_0123456789abcdefghijk'
const EMAIL = 'ada@example.com'
const PASSWORD = 'correct horse battery staple'
const SHOTS = join(ROOT, 'docs', 'console')
const STEP_MS = 60_000
const id = (testid: string) => `[data-testid="${testid}"]`

if (!CHROMIUM) warnSkipped('the editor tests in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('the workflow editor in chromium', () => {
    const dir = tempDir('automaton-editor-')
    let server: ServerProcess
    let browser: Browser
    let page: Page
    let workflowId = ''
    const problems: string[] = []
    const call = (method: string, path: string, body?: unknown) => api(server.url, method, path, KEY, body)
    const stored = async (wf = workflowId) => (await call('GET', `/v1/workflows/${wf}`)).body.data
    const shot = (name: string) => page.screenshot({ path: join(SHOTS, `editor-${name}.png`) as `${string}.png` })
    /** A new workflow (a definition holds one node at least), opened, its one node deleted from the keyboard. */
    const openEmptyDraft = async (name: string) => {
      const definition = { triggerNodeIds: ['root'], nodes: { root: { type: 'manual' } } }
      const created = (await call('POST', '/v1/workflows', { name, definition })).body.data.id as string
      await page.goto(`${server.url}/workflows/${created}`)
      await page.waitForSelector(id('node:root'))
      await selectByKeyboard('root')
      await page.keyboard.press('Delete')
      await page.waitForFunction((s) => !document.querySelector(s), {}, id('node:root'))
      return created
    }
    /** Selects a node from the keyboard: focus it, Enter. */
    const selectByKeyboard = async (node: string) => {
      // A node is drawn (and focusable) once measured.
      await page.waitForSelector(id(`node:${node}`), { visible: true })
      await page.$eval(id(`node:${node}`), (e) => (e as HTMLElement).focus())
      await page.keyboard.press('Enter')
      await page.waitForSelector(`${id(`node:${node}`)}.selected`)
    }
    /** Lets the page paint and run its effects. */
    const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))))
    /** Renames a node in the panel's id field. */
    const rename = async (from: string, to: string) => {
      await selectByKeyboard(from)
      const input = id('rename')
      await page.waitForFunction(
        (s, v) => (document.querySelector(s) as HTMLInputElement)?.value === v,
        {},
        input,
        from,
      )
      await settle()
      await page.click(input, { clickCount: 3 })
      await page.type(input, to)
      await page.keyboard.press('Enter')
      await page.waitForSelector(id(`node:${to}`))
    }
    const typeInto = async (testid: string, text: string) => {
      await page.waitForSelector(id(testid), { visible: true })
      await page.click(id(testid))
      await page.keyboard.type(text)
      await page.keyboard.press('Escape')
    }
    /**
     * Waits for an element of the canvas, after fitting the view: the canvas draws only what is in
     * view, so an element off-screen is not in the page.
     */
    const seen = async (testid: string) => {
      await settle()
      await page.click(id('fit'))
      await page.waitForSelector(id(testid))
    }
    /** Saves and waits until the draft is saved. */
    const save = async () => {
      await page.click(id('save'))
      await page.waitForFunction((s) => document.querySelector(s)?.textContent === 'Saved', {}, id('save'))
    }

    beforeAll(async () => {
      const sizes = await buildConsole()
      expect(sizes.total).toBeLessThan(BUDGET)
      expect(sizes.editor).toBeLessThan(EDITOR_BUDGET)
      const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_BOOTSTRAP_KEY: KEY, AUTOMATON_LOG_LEVEL: 'info' }
      server = await startServer({ env })
      const me = await call('GET', '/v1/me')
      const passwordFile = join(dir.path, 'password')
      writeFileSync(passwordFile, `${PASSWORD}\n`)
      const organization = me.body.data.organizationId
      const user = ['users', 'create', '--email', EMAIL, '--org', organization, '--name', 'Ada']
      expect((await runCli([...user, '--password-file', passwordFile], env)).code).toBe(0)
      browser = await puppeteer.launch({
        executablePath: CHROMIUM!,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      })
      page = await browser.newPage()
      await page.setViewport({ width: 1440, height: 900 })
      page.setDefaultTimeout(30_000)
      page.on('console', (m) => {
        if (m.type() === 'error' && !/status of 4(00|01|12)\b/.test(m.text())) problems.push(`console: ${m.text()}`)
      })
      page.on('pageerror', (error) => problems.push(`page: ${error}`))
      page.on('request', (r) => {
        if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) problems.push(`elsewhere: ${r.url()}`)
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
      dir.remove()
    })

    it(
      'builds "Big orders" from an empty draft by mouse and keyboard, and saves it',
      async () => {
        workflowId = await openEmptyDraft('Big orders')
        // Keyboard: search the palette and press Enter to add the trigger.
        await page.waitForSelector(id('palette:manual'))
        await page.type(id('palette-search'), 'manual')
        await page.keyboard.press('Enter')
        await page.waitForSelector(id('node:root'))
        // Mouse: with the trigger selected, a palette entry is added after it and joined to it.
        await page.click(id('palette-search'), { clickCount: 3 })
        await page.keyboard.press('Backspace')
        await page.click(id('palette:if'))
        await page.waitForSelector(id('edge:root:if'))
        // With nothing selected, entries are added on their own.
        const canvas = (await (await page.$(id('canvas')))!.boundingBox())!
        await page.mouse.click(canvas.x + 12, canvas.y + canvas.height - 12)
        await page.click(id('palette:log'))
        await page.waitForSelector(id('node:log'))
        await page.mouse.click(canvas.x + 12, canvas.y + canvas.height - 12)
        await page.click(id('palette:log'))
        await page.waitForSelector(id('node:log_2'))
        // Fit once the side panel of the node just added has narrowed the canvas.
        await page.waitForSelector('aside.side-panel')
        await settle()
        await page.click(id('fit'))
        await page.waitForSelector(id('out:if:then'), { visible: true })
        await page.waitForSelector(`${id('problems')}:not([data-checking])`)
        await settle()
        // Mouse: drag from the if's "then" output to the first log's input.
        await drag(page, id('out:if:then'), id('in:log'))
        await page.waitForSelector(id('edge:if:log:then'))
        // Keyboard: focus the if node, select it, `c`, choose the target and the branch.
        await selectByKeyboard('if')
        await page.keyboard.press('c')
        await page.waitForSelector(id('connect-target'))
        await page.select(id('connect-target'), 'log_2')
        await page.select(id('connect-branch'), 'else')
        await page.$eval(id('connect-ok'), (e) => (e as HTMLElement).focus())
        await page.keyboard.press('Enter')
        await page.waitForSelector(id('edge:if:log_2:else'))
        // Rename each node in the panel.
        await rename('if', 'check')
        await rename('log', 'big')
        await rename('log_2', 'small')
        // Configure in the panel: the condition, and each log's message.
        await selectByKeyboard('check')
        await page.click(id('condition-add:/payload/condition'))
        await typeInto('condition:/payload/condition/0/left', '{{root.result.body.amount}}')
        await page.select(id('condition:/payload/condition/0/op'), '$gt')
        await typeInto('condition:/payload/condition/0/operand', '100')
        await selectByKeyboard('big')
        await typeInto('field:/payload/message', 'big order {{root.result.body.amount}}')
        await selectByKeyboard('small')
        await typeInto('field:/payload/message', 'small order after {{check.result}}')
        await shot('built')
        await save()
        const definition = (await stored()).definition
        expect(definition.triggerNodeIds).toEqual(['root'])
        expect(definition.nodes.root).toMatchObject({ type: 'manual', children: ['check'] })
        expect(definition.nodes.check).toMatchObject({ type: 'if', children: ['big', 'small'] })
        expect(definition.nodes.big).toMatchObject({ type: 'log', branch: 'then' })
        expect(definition.nodes.small).toMatchObject({ type: 'log', branch: 'else' })
        expect(JSON.stringify(definition.nodes.check.payload)).toContain('{{root.result.body.amount}}')
        expect(definition.nodes.big.payload.message).toBe('big order {{root.result.body.amount}}')
        expect(definition.nodes.small.payload.message).toBe('small order after {{check.result}}')
      },
      STEP_MS,
    )

    it(
      "refuses a stale save after a second session's, then reloads theirs and publishes it",
      async () => {
        // A second session (the API) changes a message meanwhile.
        const definition = structuredClone((await stored()).definition)
        definition.nodes.big.payload = { message: 'a big order: {{root.result.body.amount}}' }
        expect((await call('PUT', `/v1/workflows/${workflowId}`, { definition })).status).toBe(200)
        // The editor moves a node from the keyboard and saves: refused, nothing lost silently.
        await selectByKeyboard('big')
        await page.keyboard.press('ArrowDown')
        await page.click(id('save'))
        await page.waitForSelector(id('conflict-reload'))
        await shot('conflict')
        await page.click(id('conflict-reload'))
        await page.waitForFunction((s) => !document.querySelector(s), {}, id('conflict-reload'))
        await page.click(id('publish'))
        await page.click(id('publish-confirm'))
        await page.waitForSelector('.page-head .badge[data-status="active"]')
        const live = await stored()
        expect(live).toMatchObject({ hasLiveVersion: true, status: 'active' })
        expect(live.definition.nodes.big.payload.message).toBe('a big order: {{root.result.body.amount}}')
      },
      STEP_MS,
    )

    it(
      'renames a node and its references follow; undo and redo take the rename and a field edit back',
      async () => {
        await rename('check', 'gate')
        await seen('edge:gate:small:else')
        await page.click(id('undo'))
        await seen('edge:check:small:else')
        expect(await page.$(id('node:gate'))).toBeNull()
        await page.click(id('redo'))
        await seen('edge:gate:small:else')
        // A field edit is undone as one step too.
        const message = id('field:/payload/message')
        await selectByKeyboard('small')
        await typeInto('field:/payload/message', ' (edited)')
        await page.waitForFunction((s) => document.querySelector(s)?.textContent?.includes('(edited)'), {}, message)
        await page.click(id('undo'))
        await page.waitForFunction((s) => !document.querySelector(s)?.textContent?.includes('(edited)'), {}, message)
        await save()
        const nodes = (await stored()).definition.nodes
        expect(nodes.check).toBeUndefined()
        expect(nodes.root.children).toEqual(['gate'])
        expect(nodes.small.payload.message).toBe('small order after {{gate.result}}')
        expect(nodes.big.payload.message).toBe('a big order: {{root.result.body.amount}}')
      },
      STEP_MS,
    )

    it(
      'inserts a node on an edge',
      async () => {
        await seen('edge:root:gate')
        // Click the middle of the edge's line, then the palette entry.
        const middle = await page.$eval(`${id('edge:root:gate')} path`, (element) => {
          const path = element as SVGPathElement
          const point = path.getPointAtLength(path.getTotalLength() / 2)
          const m = path.getScreenCTM()!
          return { x: point.x * m.a + point.y * m.c + m.e, y: point.x * m.b + point.y * m.d + m.f }
        })
        await page.mouse.click(middle.x, middle.y)
        await page.waitForSelector(`${id('edge:root:gate')}.selected`)
        await page.click(id('palette:delay'))
        await seen('edge:root:delay')
        await seen('edge:delay:gate')
        expect(await page.$(id('edge:root:gate'))).toBeNull()
        await shot('inserted')
        await page.keyboard.down('Control')
        await page.keyboard.press('z')
        await page.keyboard.up('Control')
        await seen('edge:root:gate')
      },
      STEP_MS,
    )

    it(
      "copies nodes as definition JSON and pastes them into another workflow, as well as the API's format",
      async () => {
        await selectByKeyboard('big')
        const copied = await page.evaluate(() => {
          const data = new DataTransfer()
          document.dispatchEvent(new ClipboardEvent('copy', { clipboardData: data, bubbles: true }))
          return data.getData('text/plain')
        })
        expect(JSON.parse(copied).nodes.big).toMatchObject({ type: 'log', branch: 'then' })
        const apiFormat = JSON.stringify(await call('GET', `/v1/workflows/${workflowId}`).then((r) => r.body))
        const other = await openEmptyDraft('Pasted')
        const paste = (text: string) =>
          page.evaluate((t) => {
            const data = new DataTransfer()
            data.setData('text/plain', t)
            document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }))
          }, text)
        await paste(apiFormat)
        await seen('edge:gate:big:then')
        await paste(copied)
        await page.waitForSelector(id('node:big_2'))
        await shot('pasted')
        await save()
        const nodes = (await stored(other)).definition.nodes
        expect(Object.keys(nodes).sort()).toEqual(['big', 'big_2', 'gate', 'root', 'small'])
        expect(nodes.big_2.payload.message).toBe('a big order: {{root.result.body.amount}}')
        expect(problems).toEqual([])
      },
      STEP_MS,
    )
  })

/** Drags with the mouse from the centre of one element to the centre of another. */
async function drag(page: Page, from: string, to: string) {
  const a = (await (await page.$(from))!.boundingBox())!
  const b = (await (await page.$(to))!.boundingBox())!
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2)
  await page.mouse.down()
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 })
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 })
  await page.mouse.up()
}
