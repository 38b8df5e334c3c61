/**
 * The workflow editor in a real browser (Debian's chromium through puppeteer-core, a real server on
 * the embedded store): how long after navigation a 200-node and a 1,000-node workflow are drawn and
 * accept input, and how long a node moved by an arrow key or a keystroke in a field takes to be
 * painted (p95 of 50 each). Every time is taken in the page: `performance.now()` counts from the
 * navigation, and a key's time runs from its event's time stamp to the end of the frame that
 * follows it. Also the compressed sizes of the first page and of the editor's chunks.
 *   bun bench/run.ts console
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { BUDGET, buildConsole, EDITOR_BUDGET } from '../console/build.ts'
import { api, runCli, type ServerProcess, startServer } from '../tests/helpers/process.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import type { Result } from './store-writes.ts'

const CHROMIUM = process.env.AUTOMATON_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null)
const KEY = 'svcsk_console_bench_bootstrap_key_0123456789abcdef'
const EMAIL = 'bench@example.com'
const PASSWORD = 'correct horse battery staple'
const INTERACTIONS = 50
/** Milliseconds between two keys: a quick typist. */
const KEY_GAP_MS = 80

/**
 * A workflow of `size` nodes as people build them: a manual trigger, then blocks of a `log`, an
 * `if` on the trigger's amount, a `set-variable` on its then branch (which the next block follows)
 * and a `log` on its else branch.
 */
export function benchDefinition(size: number) {
  const nodes: Record<string, Record<string, unknown>> = { root: { type: 'manual', children: ['log_0'] } }
  for (let i = 0; 4 * i + 1 < size; i++) {
    const next = 4 * (i + 1) + 1 < size ? [`log_${i + 1}`] : []
    nodes[`log_${i}`] = { type: 'log', payload: { message: `step ${i}: {{root.result.body.amount}}` } }
    nodes[`log_${i}`].children = [`check_${i}`]
    const condition = { $and: [{ '{{root.result.body.amount}}': { $gt: i * 10 } }] }
    nodes[`check_${i}`] = { type: 'if', payload: { condition }, children: [`set_${i}`, `else_${i}`] }
    const value = `{{root.result.body.amount}}`
    nodes[`set_${i}`] = { type: 'set-variable', branch: 'then', payload: { name: 'total', value }, children: next }
    nodes[`else_${i}`] = { type: 'log', branch: 'else', payload: { message: `small at step ${i}` } }
  }
  const kept = Object.fromEntries(Object.entries(nodes).slice(0, size))
  for (const node of Object.values(kept))
    node.children = (node.children as string[] | undefined)?.filter((c) => kept[c])
  return { triggerNodeIds: ['root'], nodes: kept }
}

/**
 * Installed in the page before its own script: each keydown's time from its time stamp to the end
 * of the next frame (a frame's rAF callback, then a task after it, which runs once it is painted).
 */
function installProbe() {
  const probe = { keys: [] as number[] }
  ;(window as any).__probe = probe
  document.addEventListener(
    'keydown',
    (event) => requestAnimationFrame(() => setTimeout(() => probe.keys.push(performance.now() - event.timeStamp), 0)),
    true,
  )
}

/**
 * In the page: the time since navigation at which a node is drawn (visible, measured) and the main
 * thread then runs two frames in a row less than 50 ms apart, so that a key pressed is answered.
 */
function readyAt(): Promise<number> {
  const visible = () =>
    [...document.querySelectorAll('.react-flow__node')].some((n) => getComputedStyle(n).visibility !== 'hidden')
  return new Promise((resolve) => {
    let frames: number[] = []
    const frame = () => {
      const now = performance.now()
      if (!visible()) frames = []
      else frames.push(now)
      const [a, b, c] = frames.slice(-3)
      if (c !== undefined && b - a < 50 && c - b < 50) return resolve(a)
      requestAnimationFrame(frame)
    }
    requestAnimationFrame(frame)
  })
}

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** Focuses the first drawn node whose id starts with `prefix` and selects it with Enter; answers its id. */
async function selectDrawn(page: Page, prefix: string): Promise<string> {
  const node = await page.evaluate((p) => {
    const all = [...document.querySelectorAll<HTMLElement>(`[data-testid^="node:${p}"]`)]
    const drawn = all.find((n) => getComputedStyle(n).visibility !== 'hidden')
    drawn?.focus()
    return drawn?.dataset.testid
  }, prefix)
  if (!node) throw new Error(`no ${prefix} node is drawn`)
  await page.keyboard.press('Enter')
  await page.waitForSelector(`[data-testid="${node}"].selected`)
  return node.slice('node:'.length)
}

/** Presses keys and answers each one's time to paint, from the probe. */
async function keyTimes(page: Page, press: (i: number) => Promise<void>): Promise<number[]> {
  await page.evaluate(() => ((window as any).__probe.keys = []))
  for (let i = 0; i < INTERACTIONS; i++) {
    await press(i)
    await new Promise((r) => setTimeout(r, KEY_GAP_MS))
  }
  await page.waitForFunction((n) => (window as any).__probe.keys.length >= n, {}, INTERACTIONS)
  return page.evaluate(() => (window as any).__probe.keys as number[])
}

async function measureWorkflow(page: Page, url: string, workflowId: string, size: number): Promise<Result[]> {
  await page.goto(`${url}/workflows/${workflowId}`)
  const ready = await page.evaluate(readyAt)
  await selectDrawn(page, 'log_')
  const moves = await keyTimes(page, () => page.keyboard.press('ArrowRight'))
  await selectDrawn(page, 'log_')
  const field = '[data-testid="field:/payload/message"]'
  await page.waitForSelector(field, { visible: true })
  await page.click(field)
  const keys = await keyTimes(page, (i) => page.keyboard.type('abcdefghij'[i % 10]))
  const limit = size <= 200 ? 1000 : 3000
  const note = (values: number[]) =>
    `p95 of ${values.length} keys (median ${median(values).toFixed(1)} ms, slowest ${Math.max(...values).toFixed(1)} ms); limit 50 ms`
  return [
    {
      name: `editor: ${size}-node workflow drawn, accepting input`,
      value: Math.round(ready),
      unit: 'ms',
      note: `since navigation; limit ${limit} ms`,
    },
    {
      name: `editor: ${size} nodes, node moved (arrow key) to paint`,
      value: Math.round(p95(moves) * 10) / 10,
      unit: 'ms',
      note: note(moves),
    },
    {
      name: `editor: ${size} nodes, keystroke in a field to paint`,
      value: Math.round(p95(keys) * 10) / 10,
      unit: 'ms',
      note: note(keys),
    },
  ]
}

async function signIn(page: Page, url: string) {
  await page.goto(`${url}/signin`)
  await page.type('input[name=email]', EMAIL)
  await page.type('input[name=password]', PASSWORD)
  await page.click('button[type=submit]')
  await page.waitForSelector('nav.top')
}

async function startBrowser(): Promise<{ browser: Browser; page: Page }> {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  })
  const page = await browser.newPage()
  await page.setViewport({ width: 1440, height: 900 })
  page.setDefaultTimeout(60_000)
  await page.evaluateOnNewDocument(installProbe)
  return { browser, page }
}

function sizeResults(sizes: { total: number; editor: number }): Result[] {
  const kb = (n: number) => Math.round((n / 1024) * 10) / 10
  return [
    { name: 'console: first page, compressed', value: kb(sizes.total), unit: 'KB', note: `budget ${kb(BUDGET)} KB` },
    {
      name: "console: the editor's chunks, compressed",
      value: kb(sizes.editor),
      unit: 'KB',
      note: `budget ${kb(EDITOR_BUDGET)} KB`,
    },
  ]
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const sizes = sizeResults(await buildConsole())
  if (!CHROMIUM)
    return [...sizes, { name: 'editor', value: 0, unit: '', note: 'no chromium (AUTOMATON_TEST_CHROMIUM)' }]
  const dir = tempDir('automaton-bench-console-')
  const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_BOOTSTRAP_KEY: KEY }
  let server: ServerProcess | undefined
  let browser: Browser | undefined
  try {
    server = await startServer({ env })
    await createPerson(server.url, env, dir.path)
    const started = await startBrowser()
    browser = started.browser
    await signIn(started.page, server.url)
    const results = [...sizes]
    for (const size of [200, 1000].map((n) => Math.max(20, Math.round(n * Math.min(1, options.scale ?? 1))))) {
      const workflowId = await openable(server.url, size)
      results.push(...(await measureWorkflow(started.page, server.url, workflowId, size)))
    }
    return results
  } finally {
    await browser?.close()
    await server?.stop('SIGKILL')
    dir.remove()
  }
}

/** Creates a workflow of `size` nodes through the API and answers its id. */
async function openable(url: string, size: number): Promise<string> {
  const variableDefs = [{ name: 'total', type: 'number', default: 0 }]
  const created = await api(url, 'POST', '/v1/workflows', KEY, {
    name: `${size} nodes`,
    definition: benchDefinition(size),
    variableDefs,
  })
  if (created.status >= 300) throw new Error(`the ${size}-node workflow was refused: ${JSON.stringify(created.body)}`)
  return created.body.data.id as string
}

async function createPerson(url: string, env: Record<string, string>, dir: string) {
  const organization = (await api(url, 'GET', '/v1/me', KEY)).body.data.organizationId
  const passwordFile = join(dir, 'password')
  writeFileSync(passwordFile, `${PASSWORD}\n`)
  const user = ['users', 'create', '--email', EMAIL, '--org', organization, '--name', 'Bench']
  const done = await runCli([...user, '--password-file', passwordFile], env)
  if (done.code !== 0) throw new Error(`the person was not created: ${done.stderr}`)
}

if (import.meta.main) for (const r of await run()) console.log(r)
