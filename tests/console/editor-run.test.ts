/**
 * Testing while building, in a real browser (Debian's chromium through puppeteer-core, a real
 * server on the embedded store), through the editor's stable hooks: pin a sample payload, run the
 * draft as a test run with it, see each node's status, duration and output on the canvas (a skipped
 * node marked as skipped), run one node again over that run's inputs without changing the run, and
 * open a node output of several megabytes while the page keeps painting. Screenshot:
 * docs/console/editor-run.png.
 */
import { beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import { ROOT } from '../helpers/process.ts'
import { BIG_ORDERS, CHROMIUM, createWorkflowIn, signedInConsoleForTests, testid as id } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_editor_run_bootstrap_key_0123456789abcdefgh'
const STEP_MS = 60_000

/** A trigger and one node after it, to pin a sample of about 5 MB on: 40,000 items of about 130 bytes. */
const BULK = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['done'] },
    done: { type: 'log', payload: { message: 'received' } },
  },
}
const BIG_SAMPLE = {
  items: Array.from({ length: 40_000 }, (_, i) => ({ i, name: `item ${i}`, note: 'x'.repeat(100) })),
}

if (!CHROMIUM) warnSkipped('the editor run tests in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('testing while building, in chromium', () => {
    const c = signedInConsoleForTests({ key: KEY, env: { AUTOMATON_MAX_BODY_BYTES: String(16 * 1024 * 1024) } })
    let page: Page
    const open = async (workflowId: string, node: string) => {
      await page.goto(`${c.server.url}/workflows/${workflowId}`)
      await page.waitForSelector(id(`node:${node}`), { visible: true })
    }
    const select = async (node: string) => {
      await page.$eval(id(`node:${node}`), (e) => (e as HTMLElement).focus())
      await page.keyboard.press('Enter')
      await page.waitForSelector(`${id(`node:${node}`)}.selected`)
    }
    const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '')

    beforeAll(() => {
      page = c.page
    })

    it(
      'pins a sample, runs the draft as a test run with it and shows each node on the canvas',
      async () => {
        const workflowId = await createWorkflowIn(c, 'Big orders', BIG_ORDERS)
        await open(workflowId, 'root')
        await page.type(id('run-payload'), '{"amount": 250}')
        await page.click(id('pin-sample'))
        await page.waitForSelector(id('pinned:root'))
        expect((await c.call('GET', `/v1/workflows/${workflowId}`)).body.data.pinnedData).toEqual({
          root: { amount: 250 },
        })

        await page.click(id('run-test'))
        await page.waitForSelector(`${id('run:big')}[data-status="success"]`)
        await page.waitForSelector(`${id('run:small')}[data-status="skipped"]`)
        expect(await text(id('run:big'))).toContain('big order 250')
        expect(await text(id('run:small'))).toContain('skipped')
        expect(await text(id('run:check'))).toMatch(/\d+ ms/)

        // The run used the pinned sample, and is a test run: production lists leave it out.
        const tests = (await c.call('GET', `/v1/workflows/${workflowId}/runs?test=true`)).body.data.items
        expect(tests).toHaveLength(1)
        expect(tests[0].test).toBe(true)
        expect((await c.call('GET', `/v1/workflows/${workflowId}/runs`)).body.data.items).toHaveLength(0)
        const runId = tests[0].id as string

        // The node's run view: its output as a tree, opened on a row.
        await select('big')
        await page.waitForSelector(id('run-output:big'))
        expect(await text(id('run-output:big'))).toContain('big order 250')
        await page.waitForSelector(`${id('run-view:big')} .badge.test-data`)

        // Change the node and run it again over the run's inputs: the outcome shows, the run stays.
        await page.click(id('field:/payload/message'))
        await page.keyboard.press('End')
        await page.keyboard.type(' again')
        await page.keyboard.press('Escape')
        await page.click(id('run-node'))
        await page.waitForSelector(`${id('node-test:big')}[data-status="success"]`)
        expect(await text(id('node-test-output:big'))).toContain('big order 250 again')
        const run = (await c.call('GET', `/v1/runs/${runId}`)).body.data
        expect(run.nodes.big.result).toEqual({ message: 'big order 250' })
        expect((await c.call('GET', `/v1/workflows/${workflowId}/runs?test=true`)).body.data.items).toHaveLength(1)
        await page.click(id('fit'))
        await page.$eval(id('node-test:big'), (e) => e.scrollIntoView({ block: 'end' }))
        await page.screenshot({ path: join(ROOT, 'docs', 'console', 'editor-run.png') as `${string}.png` })

        // The trigger's input schema now wants a key the sample lacks: the sample is flagged.
        const inputSchema = [{ key: 'currency', type: 'string', required: true }]
        const changed = await c.call('PUT', `/v1/workflows/${workflowId}`, {
          definition: { ...BIG_ORDERS, inputSchema },
        })
        expect(changed.status).toBe(200)
        await open(workflowId, 'root')
        await page.waitForSelector(id('pinned-problems'))
        expect(await text(id('pinned-problems'))).toContain('required')
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )

    it(
      'opens a node output of several megabytes while the page keeps painting',
      async () => {
        const workflowId = await createWorkflowIn(c, 'Bulk', BULK)
        expect((await c.call('PUT', `/v1/workflows/${workflowId}`, { pinnedData: { root: BIG_SAMPLE } })).status).toBe(
          200,
        )
        await open(workflowId, 'root')
        // Long tasks (over 50 ms on the main thread) are counted from here on, in the page.
        await page.evaluate(() => {
          const w = window as any
          w.longTasks = []
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) w.longTasks.push(entry.duration)
          }).observe({ type: 'longtask' })
        })
        await page.click(id('run-test'))
        await page.waitForSelector(`${id('run:root')}[data-status="success"]`)
        await select('root')
        await page.waitForSelector(id('run-output:root'))
        await page.click(`${id('run-output:root')} [data-path="/body"]`)
        await page.click(`${id('run-output:root')} [data-path="/body/items"]`)
        // 40,000 items open as ranges, and a range as its items: only a screenful is in the page.
        await page.click(`${id('run-output:root')} [data-path="/body/items#0-10000"]`)
        await page.click(`${id('run-output:root')} [data-path="/body/items#0-100"]`)
        await page.waitForSelector(`${id('run-output:root')} [data-path="/body/items/5"]`)
        expect(await page.$$eval(`${id('run-output:root')} .json-row`, (rows) => rows.length)).toBeLessThan(60)
        // Scrolling through the tree and the page's frames: measured in the page.
        const measured = await page.evaluate(async (selector) => {
          const tree = document.querySelector(selector)!
          const start = performance.now()
          let frames = 0
          while (performance.now() - start < 500) {
            tree.scrollTop += 200
            await new Promise((r) => requestAnimationFrame(r))
            frames++
          }
          const w = window as any
          return { frames, elapsed: performance.now() - start, long: w.longTasks as number[] }
        }, id('run-output:root'))
        // The page kept painting (about 30 frames in half a second at 60 Hz) …
        expect(measured.frames).toBeGreaterThan(10)
        // … and the few long tasks (reading the run's JSON) are short.
        expect(measured.long.length).toBeLessThanOrEqual(3)
        expect(Math.max(0, ...measured.long)).toBeLessThan(500)
        console.log(
          `big output: ${measured.frames} frames in ${Math.round(measured.elapsed)} ms; long tasks ${measured.long.map(Math.round).join(', ')} ms`,
        )
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )
  })
