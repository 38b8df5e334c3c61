/**
 * The editor's node panel in a real browser (Debian's chromium through puppeteer-core, a real
 * server on the embedded store), driven through its stable hooks: write an `if` condition with
 * an expression chosen from the completion, fill a `log` message whose preview says there is no
 * run yet, have an invalid id refused, and save what the panel wrote. The screenshot goes to
 * docs/console/editor-panel.png.
 */
import { beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import type { ElementHandle, Page } from 'puppeteer-core'
import { ROOT } from '../helpers/process.ts'
import { CHROMIUM, createWorkflowIn, signedInConsoleForTests, testid as id } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_panel_bootstrap_key_0123456789abcdefghijkl'
const STEP_MS = 60_000

const DEFINITION = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['check'] },
    check: { type: 'if', children: ['big'], payload: {} },
    big: { type: 'log', branch: 'then', payload: { message: '' } },
  },
}

if (!CHROMIUM) warnSkipped('the node panel tests in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('the node panel in chromium', () => {
    const c = signedInConsoleForTests({ key: KEY })
    let page: Page
    let workflowId = ''

    beforeAll(async () => {
      page = c.page
      workflowId = await createWorkflowIn(c, 'Big orders', DEFINITION)
    })

    it(
      'writes a condition through the completion and a message, refuses an invalid id, and saves them',
      async () => {
        await page.goto(`${c.server.url}/workflows/${workflowId}`)
        await page.waitForSelector(id('node:check'))
        await page.click(id('node:check'))
        await page.waitForSelector(id('field:/payload/condition'))
        await page.click(id('condition-add:/payload/condition'))
        await page.waitForSelector(id('condition:/payload/condition/0/left'))
        await page.click(id('condition:/payload/condition/0/left'))
        await page.keyboard.type('{{roo')
        // The completion offers the roots; choosing one writes it.
        const root = await page.waitForFunction(() =>
          [...document.querySelectorAll('.cm-tooltip-autocomplete li')].find(
            (li) => li.querySelector('.cm-completionLabel')?.textContent === 'root',
          ),
        )
        await (root.asElement() as ElementHandle<Element>).click()
        await page.waitForFunction(
          (s) => document.querySelector(s)?.textContent === '{{root',
          {},
          id('condition:/payload/condition/0/left'),
        )
        await page.keyboard.type('.result.body.amount}}')
        await page.select(id('condition:/payload/condition/0/op'), '$gt')
        await page.type(id('condition:/payload/condition/0/operand'), '100')

        await page.click(id('fit'))
        await page.waitForSelector(id('node:big'))
        await page.click(id('node:big'))
        await page.waitForSelector(id('field:/payload/message'))
        await page.click(id('field:/payload/message'))
        await page.keyboard.type('big order {{root.result.body.amount}}')
        await page.waitForFunction(
          (s) => document.querySelector(s)?.textContent === 'no run yet',
          {},
          id('preview:/payload/message'),
        )

        await page.$eval(id('rename'), (e) => ((e as HTMLInputElement).value = ''))
        await page.type(id('rename'), 'big order')
        await page.keyboard.press('Enter')
        await page.waitForSelector('#node-rename-problem')
        expect(await page.$(id('node:big'))).not.toBeNull()
        await page.screenshot({ path: join(ROOT, 'docs', 'console', 'editor-panel.png') as `${string}.png` })

        await page.click(id('save'))
        await page.waitForFunction((s) => document.querySelector(s)?.textContent === 'Saved', {}, id('save'))
        const nodes = (await c.call('GET', `/v1/workflows/${workflowId}`)).body.data.definition.nodes
        expect(nodes.check.payload.condition).toEqual({ $and: [{ '{{root.result.body.amount}}': { $gt: 100 } }] })
        expect(nodes.big.payload.message).toBe('big order {{root.result.body.amount}}')
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )
  })
