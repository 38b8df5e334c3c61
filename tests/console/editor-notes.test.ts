/**
 * Notes and versions in the workflow editor, in a real browser (Debian's chromium through
 * puppeteer-core, a real server on the embedded store), driven through the stable hooks: a sticky
 * note (dragged by the mouse, moved by the keyboard) and a comment with a reply kept in
 * uiMetadata, undo of a note, the draft against the live version on the canvas and before
 * publishing, a rollback from the version list; names instead of ids on the versions and on the
 * runs list. Screenshots go to docs/console/editor-notes.png, editor-diff.png and
 * editor-rollback.png.
 */
import { beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import { ROOT } from '../helpers/process.ts'
import { CHROMIUM, createWorkflowIn, signedInConsoleForTests, testid as id } from '../helpers/console.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_editor_notes_bootstrap_key_0123456789abcdef'
const NAME = 'Notes and versions'
const SHOTS = join(ROOT, 'docs', 'console')
const STEP_MS = 60_000
const starting = (prefix: string) => `[data-testid^="${prefix}"]`

if (!CHROMIUM) warnSkipped('the editor notes tests in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('notes and versions in the workflow editor, in chromium', () => {
    const c = signedInConsoleForTests({ key: KEY })
    let page: Page
    let workflowId = ''
    const stored = async () => (await c.call('GET', `/v1/workflows/${workflowId}`)).body.data
    const count = (selector: string) => page.$$eval(selector, (all) => all.length)
    const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '')
    const save = async () => {
      await page.click(id('save'))
      await page.waitForFunction((s) => document.querySelector(s)?.textContent === 'Saved', {}, id('save'))
    }
    /** The sticky note's place on the canvas, as drawn. */
    const notePosition = () =>
      page.$eval(starting('note:'), (e) => {
        const [, x, y] = /translate\((-?[\d.]+)px, (-?[\d.]+)px\)/.exec((e as HTMLElement).style.transform)!
        return { x: Number(x), y: Number(y) }
      })
    const selectNode = async (node: string) => {
      await page.waitForSelector(id(`node:${node}`), { visible: true })
      await page.$eval(id(`node:${node}`), (e) => (e as HTMLElement).focus())
      await page.keyboard.press('Enter')
      await page.waitForSelector(`${id(`node:${node}`)}.selected`)
    }

    beforeAll(async () => {
      page = c.page
      const definition = {
        triggerNodeIds: ['root'],
        nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } },
      }
      workflowId = await createWorkflowIn(c, NAME, definition)
      expect((await c.call('POST', `/v1/workflows/${workflowId}/publish`)).status).toBe(200)
    })

    it(
      'keeps a sticky note and a comment with a reply in uiMetadata, and undoes a note',
      async () => {
        await page.goto(`${c.server.url}/workflows/${workflowId}`)
        await page.waitForSelector(id('node:say'), { visible: true })
        await page.click(id('add-note'))
        await page.waitForSelector(starting('note-text:'))
        await page.click(starting('note-text:'))
        await page.keyboard.type('Check the amounts first')
        // Undo takes back the text, then the note; redo brings both back.
        await page.click(id('undo'))
        await page.click(id('undo'))
        expect(await count(starting('note:'))).toBe(0)
        await page.click(id('redo'))
        await page.click(id('redo'))
        expect(await page.$eval(starting('note-text:'), (e) => (e as HTMLTextAreaElement).value)).toBe(
          'Check the amounts first',
        )
        await selectNode('say')
        await page.click(id('add-comment'))
        await page.waitForSelector(starting('comment-text:'))
        await page.click(starting('comment-text:'))
        await page.keyboard.type('Is "hi" what the team wants?')
        await page.click(starting('reply-text:'))
        await page.keyboard.type('Yes, for now')
        await page.click(starting('reply-send:'))
        await page.waitForSelector(starting('reply:'))
        // The note is dragged by its grip with the mouse, then moved with an arrow key.
        const before = await notePosition()
        const grip = (await (await page.$(starting('note-grip:')))!.boundingBox())!
        await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2)
        await page.mouse.down()
        // Left and up, clear of the comment.
        await page.mouse.move(grip.x + grip.width / 2 - 150, grip.y + grip.height / 2 - 30, { steps: 6 })
        await page.mouse.up()
        await page.waitForFunction(
          (s, x) => !(document.querySelector(s) as HTMLElement).style.transform.includes(`(${x}px`),
          {},
          starting('note:'),
          before.x,
        )
        const dragged = await notePosition()
        expect(dragged.x).toBeLessThan(before.x - 20)
        expect(dragged.y).toBeLessThan(before.y - 5)
        await page.focus(starting('note-grip:'))
        await page.keyboard.press('ArrowRight')
        await page.waitForFunction(
          (s, x) => (document.querySelector(s) as HTMLElement).style.transform.includes(`(${x}px`),
          {},
          starting('note:'),
          dragged.x + 10,
        )
        await save()
        const ui = (await stored()).uiMetadata
        expect(ui.stickyNotes).toHaveLength(1)
        expect(ui.stickyNotes[0]).toMatchObject({
          text: 'Check the amounts first',
          createdBy: { name: 'Ada' },
          position: { x: dragged.x + 10, y: dragged.y },
        })
        expect(ui.comments).toHaveLength(1)
        expect(ui.comments[0]).toMatchObject({ nodeId: 'say', text: 'Is "hi" what the team wants?', resolved: false })
        expect(ui.comments[0].replies.map((r: any) => [r.text, r.createdBy.name])).toEqual([['Yes, for now', 'Ada']])
        await page.click(id('fit'))
        await page.screenshot({ path: join(SHOTS, 'editor-notes.png') as `${string}.png` })
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )

    it(
      'shows the draft against the live version, before publishing too, and rolls back from the version list',
      async () => {
        await selectNode('say')
        await page.click(id('palette:log'))
        await page.waitForSelector(id('node:log'), { visible: true })
        await page.waitForSelector(id('field:/payload/message'), { visible: true })
        await page.click(id('field:/payload/message'))
        await page.keyboard.type('added')
        await page.keyboard.press('Escape')
        await page.click(id('diff'))
        await page.waitForSelector(`${id('diff:log')}[data-change="added"]`)
        expect(await text(id('diff-summary'))).toContain('added: log')
        // `say` now leads to `log`: its edges changed.
        expect(await page.$eval(id('diff:say'), (e) => e.getAttribute('data-change'))).toBe('changed')
        expect(await count(id('diff:root'))).toBe(0)
        await page.click(id('fit'))
        await page.screenshot({ path: join(SHOTS, 'editor-diff.png') as `${string}.png` })
        await page.click(id('publish'))
        expect(await text(id('publish-diff'))).toContain('added: log')
        await page.click(id('publish-confirm'))
        // Once published, the draft and the live version hold the same nodes.
        await page.waitForSelector(`${id('diff-summary')}[data-empty="true"]`)
        expect(
          Object.keys((await c.call('GET', `/v1/workflows/${workflowId}/live`)).body.data.definition.nodes),
        ).toContain('log')
        // The versions carry their authors' names: the person's for the versions saved in the console.
        const first = Math.min(
          ...(await c.call('GET', `/v1/workflows/${workflowId}/versions`)).body.data.items.map((v: any) => v.version),
        )
        await page.waitForFunction(() =>
          [...document.querySelectorAll('tr[data-version] td:nth-child(2)')].some((td) => td.textContent === 'Ada'),
        )
        const authors = await page.$$eval('tr[data-version] td:nth-child(2)', (all) => all.map((e) => e.textContent))
        expect(authors.filter((a) => /^(usr|key|sa)_/.test(a ?? ''))).toEqual([])
        await page.click(id(`rollback:${first}`))
        await page.waitForFunction((s) => !document.querySelector(s), {}, id('node:log'))
        await page.waitForSelector(id('node:say'), { visible: true })
        expect(Object.keys((await stored()).definition.nodes).sort()).toEqual(['root', 'say'])
        await page.click(id('diff'))
        await page.waitForSelector(`${id('diff:log')}[data-change="removed"]`)
        expect(await text(id('diff-summary'))).toContain('removed: log')
        await page.click(id('fit'))
        await page.screenshot({ path: join(SHOTS, 'editor-rollback.png') as `${string}.png` })
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )

    it(
      'names the workflow on the runs list, not its id',
      async () => {
        expect((await c.call('POST', `/v1/workflows/${workflowId}/run`, { payload: {} })).status).toBeLessThan(300)
        await page.goto(`${c.server.url}/runs?workflowId=${workflowId}`)
        await page.waitForSelector('tr[data-run]')
        const row = await text('tr[data-run]')
        expect(row).toContain(NAME)
        expect(row).not.toContain(workflowId)
        expect(c.problems).toEqual([])
      },
      STEP_MS,
    )
  })
