/**
 * Options a plugin loads for fields inside objects and arrays, in the editor's node panel, in a
 * real browser (Debian's chromium through puppeteer-core, a real server with an external plugin,
 * the shared console harness): the field of an array's item and the field of an object each
 * list the plugin's values, computed from the payload's other values, and the one picked is saved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHROMIUM, openSignedInConsole, type SignedInConsole, testid as id } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY = 'svcsk_editor_options_bootstrap_key_0123456789abcd'
const STEP_MS = 60_000

/** An action whose loaders serve a field of each route (an array's items) and a field of `target` (an object). */
const ROUTES_PLUGIN = `export default ({ definePlugin, defineAction, Type }) => definePlugin({
  id: 'routes', name: 'Routes', version: '1.0.0', author: 'tests',
  actions: [defineAction({
    type: 'routes-send', name: 'Send along routes', description: 'sends to each route',
    payload: Type.Object({
      workspace: Type.String(),
      target: Type.Object({ board: Type.String() }),
      routes: Type.Array(Type.Object({ channel: Type.String() })),
    }),
    result: Type.Any(),
    run: () => ({}),
    options: {
      'routes[].channel': (ctx) => ({ items: [
        { label: ctx.values.workspace + '/general', value: 'C1' },
        { label: ctx.values.workspace + '/alerts', value: 'C2' },
      ] }),
      'target.board': (ctx) => ({ items: [{ label: ctx.values.workspace + ' roadmap', value: 'B1' }] }),
    },
  })],
})
`

const DEFINITION = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['send'] },
    send: {
      type: 'routes-send',
      payload: { workspace: 'ops', target: { board: '' }, routes: [{ channel: '' }] },
    },
  },
}

if (!CHROMIUM)
  warnSkipped('the editor options tests in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe("a plugin's options for nested fields, in chromium", () => {
    const plugins = tempDir('automaton-editor-plugins-')
    let c: SignedInConsole
    let workflowId = ''

    beforeAll(async () => {
      mkdirSync(join(plugins.path, 'routes'))
      writeFileSync(join(plugins.path, 'routes', 'index.js'), ROUTES_PLUGIN)
      c = await openSignedInConsole({ key: KEY, env: { AUTOMATON_PLUGINS_DIR: plugins.path } })
      const created = await c.call('POST', '/v1/workflows', { name: 'Routes', definition: DEFINITION })
      expect(created.status).toBe(200)
      workflowId = created.body.data.id
    }, 90_000)

    afterAll(async () => {
      await c?.close()
      plugins.remove()
    })

    it(
      "lists the plugin's values for a route's channel and the target's board, and saves the ones picked",
      async () => {
        const { page } = c
        await page.goto(`${c.server.url}/workflows/${workflowId}`)
        await page.waitForSelector(id('node:send'), { visible: true })
        await page.$eval(id('node:send'), (e) => (e as HTMLElement).focus())
        await page.keyboard.press('Enter')
        const labels = (pointer: string, count: number) =>
          page.waitForFunction(
            (s, n) => {
              const options = [...document.querySelectorAll(`${s} option`)].map((o) => o.textContent)
              return options.length >= n && options
            },
            {},
            id(`field:${pointer}`),
            count,
          )
        // Each list: none, the current value (empty, not offered), then the plugin's values.
        const channels = await (await labels('/payload/routes/0/channel', 4)).jsonValue()
        expect(channels).toEqual(['—', '""', 'ops/general', 'ops/alerts'])
        const boards = await (await labels('/payload/target/board', 3)).jsonValue()
        expect(boards).toEqual(['—', '""', 'ops roadmap'])
        // The options are listed by index: pick the second channel and the board.
        await page.select(id('field:/payload/routes/0/channel'), '1')
        await page.select(id('field:/payload/target/board'), '0')
        await page.click(id('save'))
        await page.waitForFunction((s) => document.querySelector(s)?.textContent === 'Saved', {}, id('save'))
        const saved = (await c.call('GET', `/v1/workflows/${workflowId}`)).body.data.definition.nodes.send.payload
        expect(saved).toEqual({ workspace: 'ops', target: { board: 'B1' }, routes: [{ channel: 'C2' }] })
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )
  })
