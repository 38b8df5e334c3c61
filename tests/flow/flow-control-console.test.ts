/**
 * A workflow's flow control settings in the console (Debian's chromium, puppeteer-core, a server
 * process): the form saves `flowControl` into the draft, shows what is stored, and shows the
 * service's 400 for a combination it refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CHROMIUM, openSignedInConsole, type SignedInConsole, testid as id } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_flow_console_bootstrap_key_0123456789ab'

if (!CHROMIUM) warnSkipped('the flow control console test', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('flow control settings in the console (chromium)', () => {
    let c: SignedInConsole
    beforeAll(async () => {
      c = await openSignedInConsole({ key: KEY })
    }, 90_000)
    afterAll(() => c?.close())

    it('saves the rules switched on, and shows a refusal', async () => {
      const created = await c.call('POST', '/v1/workflows', {
        name: 'Syncs',
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', payload: {}, children: [] } },
        },
      })
      const workflowId = created.body.data.id as string
      const page = c.page
      await page.goto(`${c.server.url}/workflows/${workflowId}`)
      const form = id('flow-control')
      /** Submits the form; the status of the draft's PUT it sends. */
      const submit = async () => {
        const answer = page.waitForResponse(
          (r) => r.url().endsWith(`/v1/workflows/${workflowId}`) && r.request().method() === 'PUT',
        )
        await page.click(`${form} button[type="submit"]`)
        return (await answer).status()
      }
      await page.waitForSelector(form)
      // The editor above the form is loaded lazily; the page holds its place, and the test starts
      // once it is drawn all the same.
      await page.waitForSelector(id('node:root'), { visible: true })
      await page.click(`${form} input[name="concurrency"]`)
      await page.waitForSelector(`${form} input[name="concurrency.limit"]`)
      await page.type(`${form} input[name="concurrency.key"]`, '{{root.result.body.customerId}}')
      await page.type(`${form} input[name="concurrency.limit"]`, '2')
      await page.type(`${form} input[name="priority"]`, '5')
      expect(await submit()).toBe(200)
      const stored = (await c.call('GET', `/v1/workflows/${workflowId}`)).body.data.flowControl
      expect(stored).toEqual({
        concurrency: { key: '{{root.result.body.customerId}}', limit: 2, onLimit: 'queue' },
        priority: 5,
      })

      // Skipping behind a throttle is refused; the form shows why and keeps what was typed.
      await page.waitForSelector(`${form} select[name="concurrency.onLimit"]`)
      await page.select(`${form} select[name="concurrency.onLimit"]`, 'skip')
      await page.click(`${form} input[name="throttle"]`)
      await page.waitForSelector(`${form} input[name="throttle.limit"]`)
      await page.type(`${form} input[name="throttle.limit"]`, '10')
      await page.type(`${form} input[name="throttle.periodMs"]`, '60000')
      expect(await submit()).toBe(400)
      await page.waitForFunction(
        (sel: string) => document.querySelector(sel)?.textContent?.includes('must be queue with throttle or debounce'),
        {},
        form,
      )
      expect((await c.call('GET', `/v1/workflows/${workflowId}`)).body.data.flowControl).toEqual(stored)
      // The 400 is the answer the test waited for; nothing else went wrong on the page.
      expect(c.problems.filter((p) => !p.includes('400'))).toEqual([])
    }, 60_000)
  })
