/**
 * The issue's "Done when" scenario in a real browser (Debian's chromium through puppeteer-core, a
 * real server on the embedded store, the shared console harness), driven only through the
 * editor's stable hooks (`data-testid`): from an empty draft, build the README's "Big orders"
 * workflow by mouse and keyboard, with its condition written through the expression completion;
 * save; have a second session (another tab's editor) save first, so that this one's stale save
 * is refused (412), and resolve it by reloading; publish, run it with a payload and see each
 * node's result on the canvas, the run picker following runs started elsewhere; rename a node
 * and see references follow; undo and redo (a field edit too); insert a node on an edge; copy
 * and paste nodes between workflows; draw a 200-node workflow. The other lines of the scenario
 * are steps of the files beside this one: sticky notes, comments, the diff and a rollback
 * (editor-notes), a pinned sample used by a test run and a node run again (editor-run), the
 * axe-core check (editor-axe). Screenshots go to docs/console/editor-*.png.
 */
import { beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import type { ElementHandle, Page } from 'puppeteer-core'
import { benchDefinition } from '../../bench/console.ts'
import { CHROMIUM, createWorkflowIn, signedInConsoleForTests, testid as id } from '../helpers/console.ts'
import { ROOT } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_editor_bootstrap_key_0123456789abcdefghijk'
const SHOTS = join(ROOT, 'docs', 'console')
const STEP_MS = 60_000
/** More than CodeMirror's `interactionDelay`, during which a completion list just opened ignores Enter. */
const COMPLETION_INTERACTION_DELAY_MS = 150
/** The big order's message once the second session has edited it. */
const CHECKED = 'big order {{root.result.body.amount}} (checked)'

if (!CHROMIUM) warnSkipped('the editor tests in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('the workflow editor in chromium', () => {
    const c = signedInConsoleForTests({ key: KEY })
    let page: Page
    let workflowId = ''
    const call = (method: string, path: string, body?: unknown) => c.call(method, path, body)
    const stored = async (wf = workflowId) => (await call('GET', `/v1/workflows/${wf}`)).body.data
    const shot = (name: string) => page.screenshot({ path: join(SHOTS, `editor-${name}.png`) as `${string}.png` })
    /** A new workflow (a definition holds one node at least), opened, its one node deleted from the keyboard. */
    const openEmptyDraft = async (name: string) => {
      const definition = { triggerNodeIds: ['root'], nodes: { root: { type: 'manual' } } }
      const created = await createWorkflowIn(c, name, definition)
      await page.goto(`${c.server.url}/workflows/${created}`)
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
    /** Types `typed` into an expression field, then takes the completion `choice` with Enter. */
    const complete = async (testid: string, typed: string, choice: string) => {
      await page.waitForSelector(id(testid), { visible: true })
      await page.click(id(testid))
      await page.keyboard.type(typed)
      const option = await page.waitForFunction(
        (label) => {
          const items = [...document.querySelectorAll('.cm-tooltip-autocomplete li')]
          return items.find((li) => li.querySelector('.cm-completionLabel')?.textContent === label)
        },
        {},
        choice,
      )
      // Down the list to the choice, from the keyboard.
      while (
        !(await (option.asElement() as ElementHandle<Element>).evaluate(
          (li) => li.getAttribute('aria-selected') === 'true',
        ))
      )
        await page.keyboard.press('ArrowDown')
      // CodeMirror ignores Enter for a moment (75 ms) after the list opens, against accidental picks.
      await new Promise((r) => setTimeout(r, COMPLETION_INTERACTION_DELAY_MS))
      await page.keyboard.press('Enter')
      await page.waitForFunction((s, v) => document.querySelector(s)?.textContent === v, {}, id(testid), `{{${choice}`)
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
    const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '')

    beforeAll(() => {
      page = c.page
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
        // The expression through the completion: `{{roo`, then `root` taken from the list.
        await complete('condition:/payload/condition/0/left', '{{roo', 'root')
        await page.keyboard.type('.result.body.amount}}')
        await page.keyboard.press('Escape')
        await page.waitForFunction(
          (s) => document.querySelector(s)?.textContent === '{{root.result.body.amount}}',
          {},
          id('condition:/payload/condition/0/left'),
        )
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
        // A second session (another tab's editor) changes a message and saves meanwhile.
        const other = await c.browser.newPage()
        await other.setViewport({ width: 1440, height: 900 })
        await other.goto(`${c.server.url}/workflows/${workflowId}`)
        await other.waitForSelector(id('node:big'), { visible: true })
        await other.$eval(id('node:big'), (e) => (e as HTMLElement).focus())
        await other.keyboard.press('Enter')
        await other.waitForSelector(id('field:/payload/message'), { visible: true })
        await other.click(id('field:/payload/message'))
        await other.keyboard.press('End')
        await other.keyboard.type(' (checked)')
        await other.keyboard.press('Escape')
        await other.click(id('save'))
        await other.waitForFunction((s) => document.querySelector(s)?.textContent === 'Saved', {}, id('save'))
        await other.close()
        expect((await stored()).definition.nodes.big.payload.message).toBe(CHECKED)
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
        expect(live.definition.nodes.big.payload.message).toBe(CHECKED)
      },
      STEP_MS,
    )

    it(
      "runs the published workflow with a payload and shows each node's result on the canvas",
      async () => {
        await page.waitForSelector(id('run-now-payload'))
        await page.click(id('run-now-payload'), { clickCount: 3 })
        await page.keyboard.press('Backspace')
        await page.type(id('run-now-payload'), '{"amount": 250}')
        await page.click(id('run-now'))
        await page.waitForFunction(() => /^\/runs\/run_/.test(location.pathname))
        const runId = (await page.evaluate(() => location.pathname.split('/').pop())) as string
        // Back on the workflow: the canvas shows that run, node by node.
        await page.goto(`${c.server.url}/workflows/${workflowId}`)
        await page.waitForSelector(`${id('run:big')}[data-status="success"]`)
        await page.waitForSelector(`${id('run:small')}[data-status="skipped"]`)
        await page.waitForSelector(`${id('run:check')}[data-status="success"]`)
        expect(await page.$eval(id('run-picker'), (e) => (e as HTMLSelectElement).value)).toBe(runId)
        await selectByKeyboard('big')
        await page.waitForSelector(id('run-output:big'))
        expect(await text(id('run-output:big'))).toContain('big order 250 (checked)')
        expect(await text(id('run:root'))).toMatch(/\d+ ms/)
        await seen('run:small')
        await shot('run-live')
        // A run started elsewhere (the API) appears in the run picker while the editor is open.
        const options = () =>
          page.$$eval(`${id('run-picker')} option`, (all) => all.map((o) => (o as HTMLOptionElement).value))
        const another = await call('POST', `/v1/workflows/${workflowId}/run`, { payload: { amount: 5 } })
        expect(another.status).toBeLessThan(300)
        await page.waitForFunction(
          (s, run) => [...document.querySelectorAll(`${s} option`)].some((o) => (o as HTMLOptionElement).value === run),
          {},
          id('run-picker'),
          another.body.data.runId,
        )
        expect(await options()).toContain(runId)
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )

    it(
      'renames a node and its references follow; undo and redo take the rename and a field edit back',
      async () => {
        await rename('check', 'gate')
        await seen('edge:gate:small:else')
        await shot('renamed')
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
        expect(nodes.big.payload.message).toBe(CHECKED)
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
        expect(nodes.big_2.payload.message).toBe(CHECKED)
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )

    it(
      'draws a 200-node workflow and takes input in it',
      async () => {
        const variableDefs = [{ name: 'total', type: 'number', default: 0 }]
        const definition = benchDefinition(200)
        const created = await call('POST', '/v1/workflows', { name: '200 nodes', definition, variableDefs })
        expect(created.status).toBe(200)
        await page.goto(`${c.server.url}/workflows/${created.body.data.id}`)
        // Only what is in view is drawn: any node first, then more once the view is fitted.
        await page.waitForSelector('[data-testid^="node:"]', { visible: true })
        await page.click(id('fit'))
        await settle()
        const drawn = await page.$$eval('[data-testid^="node:"]', (all) =>
          all.map((e) => e.getAttribute('data-testid')),
        )
        expect(drawn.length).toBeGreaterThan(20)
        const log = drawn.find((t) => t?.startsWith('node:log_'))!.slice('node:'.length)
        await selectByKeyboard(log)
        await page.waitForSelector(id('field:/payload/message'), { visible: true })
        await page.click(id('field:/payload/message'))
        await page.keyboard.press('End')
        await page.keyboard.type('!')
        await page.waitForFunction(
          (s) => document.querySelector(s)?.textContent?.endsWith('!'),
          {},
          id('field:/payload/message'),
        )
        await shot('large')
        expect(c.problems).toEqual([])
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
