/**
 * The console in a real browser, signed in: a server process on a fresh data dir with the
 * console built, a person with a password in its organization, and Debian's chromium (through
 * puppeteer-core) signed in as that person. The page's errors, and requests that leave for
 * another origin, are collected in `problems` for the test to assert empty.
 */
import { afterAll, beforeAll, expect } from 'bun:test'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { buildConsole } from '../../console/build.ts'
import { api, runCli, type ServerProcess, startServer } from './process.ts'
import { tempDir } from './tmp.ts'

/** Debian's chromium, or the one AUTOMATON_TEST_CHROMIUM names; null when there is none (the test skips loudly). */
export const CHROMIUM =
  process.env.AUTOMATON_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null)

export const PASSWORD = 'correct horse battery staple'

/** A `data-testid` selector. */
export const testid = (value: string) => `[data-testid="${value}"]`

/** The README's "Big orders" workflow: a manual trigger, an `if` on the amount, a `log` on each branch. */
export const BIG_ORDERS = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['check'] },
    check: {
      type: 'if',
      payload: { condition: { $and: [{ '{{root.result.body.amount}}': { $gt: 100 } }] } },
      children: ['big', 'small'],
    },
    big: { type: 'log', branch: 'then', payload: { message: 'big order {{root.result.body.amount}}' } },
    small: { type: 'log', branch: 'else', payload: { message: 'small order' } },
  },
}

export interface SignedInConsole {
  readonly server: ServerProcess
  readonly browser: Browser
  readonly page: Page
  readonly problems: string[]
  readonly dataDir: string
  /** A page in a browser context of its own (signed out), watched for problems like the first. */
  newPage(): Promise<Page>
  /** The API with the organization's bootstrap key. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  close(): Promise<void>
}

export interface ConsoleOptions {
  /** The bootstrap key of the server's organization. */
  key: string
  /** Extra environment of the server. */
  env?: Record<string, string>
  email?: string
  name?: string
  /** Accept every confirm() and alert() (the default), or leave dialogs to the test. */
  acceptDialogs?: boolean
  /** Console errors about these statuses are expected answers, not problems (default 400, 401, 404, 412). */
  expectedStatuses?: RegExp
  /** Origins the pages may reach besides the server's (an identity provider's sign-in). */
  otherOrigins?: readonly string[]
  timeoutMs?: number
}

export async function openSignedInConsole(options: ConsoleOptions): Promise<SignedInConsole> {
  await buildConsole()
  const dir = tempDir('automaton-console-')
  const env = {
    AUTOMATON_DATA_DIR: dir.path,
    AUTOMATON_BOOTSTRAP_KEY: options.key,
    AUTOMATON_LOG_LEVEL: 'info',
    ...options.env,
  }
  const server = await startServer({ env })
  const call = (method: string, path: string, body?: unknown) => api(server.url, method, path, options.key, body)
  const email = options.email ?? 'ada@example.com'
  const me = await call('GET', '/v1/me')
  const passwordFile = join(dir.path, 'password')
  writeFileSync(passwordFile, `${PASSWORD}\n`)
  const person = [
    'users',
    'create',
    '--email',
    email,
    '--org',
    me.body.data.organizationId,
    '--name',
    options.name ?? 'Ada',
  ]
  expect((await runCli([...person, '--password-file', passwordFile], env)).code).toBe(0)
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  })
  const problems: string[] = []
  const expected = options.expectedStatuses ?? /status of 4(00|01|04|12)\b/
  const watched = async (page: Page) => {
    await page.setViewport({ width: 1440, height: 900 })
    page.setDefaultTimeout(options.timeoutMs ?? 30_000)
    if (options.acceptDialogs !== false) page.on('dialog', (dialog) => void dialog.accept())
    page.on('console', (m) => {
      if (m.type() === 'error' && !expected.test(m.text())) problems.push(`console: ${m.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`page: ${error}`))
    page.on('request', (r) => {
      const url = r.url()
      const allowed = [server.url, 'data:', ...(options.otherOrigins ?? [])]
      if (!allowed.some((origin) => url.startsWith(origin))) problems.push(`elsewhere: ${url}`)
    })
    return page
  }
  const page = await watched(await browser.newPage())
  await page.goto(`${server.url}/signin`)
  await page.type('input[name=email]', email)
  await page.type('input[name=password]', PASSWORD)
  await page.click('button[type=submit]')
  await page.waitForSelector('nav.top')
  return {
    server,
    browser,
    page,
    problems,
    dataDir: dir.path,
    newPage: async () => watched(await (await browser.createBrowserContext()).newPage()),
    call,
    async close() {
      await browser.close()
      await server.stop('SIGKILL')
      dir.remove()
    },
  }
}

/** Creates a workflow through the API with the organization's key; answers its id. */
export async function createWorkflowIn(c: SignedInConsole, name: string, definition: unknown): Promise<string> {
  return (await c.call('POST', '/v1/workflows', { name, definition })).body.data.id
}

/**
 * The signed-in console of a describe block: opened before its tests, ahead of the hooks the block
 * registers after this call, and closed after them. Its fields are there from those hooks on.
 */
export function signedInConsoleForTests(options: ConsoleOptions): SignedInConsole {
  const opened = {} as SignedInConsole
  beforeAll(async () => {
    Object.assign(opened, await openSignedInConsole(options))
  }, 90_000)
  afterAll(async () => {
    // Not there when opening failed.
    await opened.close?.()
  })
  return opened
}
