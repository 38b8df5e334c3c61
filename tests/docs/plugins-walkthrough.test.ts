/**
 * A plugin written only from docs/plugins.md loads and runs: the walk-through's files (the code
 * blocks marked `file=<name>`) are written to a folder outside the project, their tests pass with
 * the test kit, and a server with AUTOMATON_PLUGINS_DIR on that folder runs the workflow of the
 * walk-through against a stand-in paging service.
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
