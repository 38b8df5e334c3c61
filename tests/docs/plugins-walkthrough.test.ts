/**
 * A plugin written only from docs/plugins.md loads and runs: the walk-through's files (the code
 * blocks marked `file=<name>`) are written to a folder outside the project, their tests pass with
 * the test kit, and a server with AUTOMATON_PLUGINS_DIR on that folder runs the workflow of the
 * walk-through against a stand-in paging service. The worked example's excerpts (the blocks
 * marked `example=<path>`) are the example's code, word for word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BUN, ROOT } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { tempDir } from '../helpers/tmp.ts'
import { waitForRun } from '../helpers/workflows.ts'

/** The fenced code blocks of a markdown text whose info string says `file=<name>`. */
function filesOf(markdown: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (const match of markdown.matchAll(/^```\w*[ \t]+file=(\S+)\n([\s\S]*?)^```$/gm)) files[match[1]] = match[2]
  return files
}

/** The fenced code blocks whose info string says `example=<path>`: each path with its excerpts. */
function excerptsOf(markdown: string): [string, string][] {
  return [...markdown.matchAll(/^```\w*[ \t]+example=(\S+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1], m[2]])
}

/** The lines without the indentation they share. */
function dedent(lines: string[]): string[] {
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length))
  return lines.map((l) => l.slice(indent))
}

/** Whether `excerpt` is a run of whole lines of `text`, indentation aside. */
function isExcerptOf(excerpt: string, text: string): boolean {
  const wanted = excerpt.replace(/\n$/, '').split('\n')
  const lines = text.split('\n')
  for (let i = 0; i + wanted.length <= lines.length; i++)
    if (dedent(lines.slice(i, i + wanted.length)).join('\n') === wanted.join('\n')) return true
  return false
}

describe('the worked example of docs/plugins.md', () => {
  const excerpts = excerptsOf(readFileSync(join(ROOT, 'docs', 'plugins.md'), 'utf8'))

  it('quotes the files of examples/helpdesk word for word', () => {
    expect(new Set(excerpts.map(([path]) => path)).size).toBeGreaterThanOrEqual(7)
    for (const [path, excerpt] of excerpts)
      expect({ path, quoted: isExcerptOf(excerpt, readFileSync(join(ROOT, path), 'utf8')) }).toEqual({
        path,
        quoted: true,
      })
  })
})

describe('the plugin walk-through of docs/plugins.md', () => {
  const dir = tempDir('automaton-walkthrough-')
  const files = filesOf(readFileSync(join(ROOT, 'docs', 'plugins.md'), 'utf8'))
  let receiver: Receiver
  let t: TestSystem
  beforeAll(async () => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir.path, name), text)
    mkdirSync(join(dir.path, 'node_modules'))
    symlinkSync(ROOT, join(dir.path, 'node_modules', 'automaton'))
    receiver = startReceiver()
    receiver.respond(() => Response.json({ id: 'pg_42' }, { status: 201 }))
    t = await openTestSystem('sqlite', {
      AUTOMATON_PLUGINS_DIR: dir.path,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    })
  })
  afterAll(async () => {
    await t?.close()
    await receiver.stop()
    dir.remove()
  })

  it('has the files of each step', () => {
    expect(Object.keys(files).sort()).toEqual(['connector.json', 'pager.mjs', 'pager.test.mjs', 'workflow.json'])
  })

  it("step 3: the plugin's own tests pass with the test kit", async () => {
    const child = Bun.spawn([BUN, 'test'], {
      cwd: dir.path,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    })
    const [code, out, err] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ])
    expect(`${out}${err}`).toContain(' 2 pass')
    expect(code).toBe(0)
  }, 30_000)

  it('steps 4 to 6: it loads, takes a connector and runs in a workflow', async () => {
    expect((await t.call('GET', '/v1/actions/pager-page')).body.data).toMatchObject({
      plugin: 'pager',
      connector: { type: 'pager' },
    })
    const connector = JSON.parse(files['connector.json'].replace('https://pager.example.com', receiver.url))
    const created = await t.call('POST', '/v1/connectors', { body: connector })
    expect(created.status).toBe(200)
    expect(created.body.data.maskedData.apiKey).toBe('••••cdef')
    const workflow = await t.call('POST', '/v1/workflows', { body: JSON.parse(files['workflow.json']) })
    expect(workflow.status).toBe(200)
    const started = await t.call('POST', `/v1/workflows/${workflow.body.data.id}/run`, {
      body: { payload: { host: 'db-1' } },
    })
    const run = await waitForRun(t, started.body.data.runId)
    expect(run.status).toBe('success')
    expect(run.nodes.page.result).toEqual({ pageId: 'pg_42' })
    const sent = receiver.requests.at(-1)!
    expect(sent).toMatchObject({ method: 'POST', path: '/pages' })
    expect(sent.headers.authorization).toBe(`Bearer ${connector.data.apiKey}`)
    expect(JSON.parse(sent.body)).toEqual({ to: 'ada', message: 'disk full on db-1', urgent: true })
    expect(JSON.stringify(run)).not.toContain(connector.data.apiKey)
  })
})
