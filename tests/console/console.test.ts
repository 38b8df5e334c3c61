/**
 * The web console in a real browser: Debian's chromium driven by puppeteer-core, against a real
 * server process on the embedded store. Sign in, create and publish a workflow, run it and watch
 * its graph turn green live, filter runs through the URL, create an API key and see it once;
 * no page logs an error. Screenshots of the main pages go to .tmp/console-screenshots.
 *
 * The browser is AUTOMATON_TEST_CHROMIUM, else /usr/bin/chromium; without one the suite is
 * skipped with a loud line (CI installs it and fails when it is missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { api, ROOT, runCli, type ServerProcess, startServer } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'
import { BUDGET, buildConsole } from '../../console/build.ts'
import { tempDir } from '../helpers/tmp.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { startScriptedOpenAi, type ScriptedOpenAi, textTurn, toolTurn } from '../helpers/openai-server.ts'

const CHROMIUM = process.env.AUTOMATON_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null)
const KEY = 'svcsk_console_bootstrap_key_0123456789abcdefghij'
const EMAIL = 'ada@example.com'
const PASSWORD = 'correct horse battery staple'
const SHOTS = join(ROOT, '.tmp', 'console-screenshots')
/** Each browser step's bound: generous, as a loaded runner renders slowly. */
const STEP_MS = 90_000

if (!CHROMIUM) warnSkipped('the console tests in a real browser', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('the web console in chromium', () => {
    const dir = tempDir('automaton-console-')
    let server: ServerProcess
    let receiver: Receiver
    let model: ScriptedOpenAi
    let browser: Browser
    let page: Page
    const problems: string[] = []

    beforeAll(async () => {
      // The server serves what is built: build the console from its sources first.
      expect((await buildConsole()).total).toBeLessThan(BUDGET)
      receiver = startReceiver()
      model = startScriptedOpenAi()
      const env = {
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_BOOTSTRAP_KEY: KEY,
        AUTOMATON_LOG_LEVEL: 'info',
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1',
        AUTOMATON_AI_BASE_URL: model.url,
        AUTOMATON_AI_MODEL: 'scripted',
        AUTOMATON_AI_DEFAULT_CREDITS: '100',
      }
      server = await startServer({ env })
      const me = await api(server.url, 'GET', '/v1/me', KEY)
      const passwordFile = join(dir.path, 'password')
      writeFileSync(passwordFile, `${PASSWORD}\n`)
      const created = await runCli(
        [
          'users',
          'create',
          '--email',
          EMAIL,
          '--org',
          me.body.data.organizationId,
          '--name',
          'Ada',
          '--password-file',
          passwordFile,
        ],
        env,
      )
      expect(created.code).toBe(0)
      browser = await puppeteer.launch({
        executablePath: CHROMIUM!,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      })
      page = await browser.newPage()
      await page.setViewport({ width: 1280, height: 860 })
      // A loaded 2-core runner renders slowly; waits end on the event, not on the clock.
      page.setDefaultTimeout(45_000)
      page.on('console', (message) => {
        // The browser logs every 4xx answer of a fetch. A 401 (nobody signed in yet, a wrong password)
        // and a 400 (a refused value, shown beside its field) are answers the pages expect and show.
        if (message.type() === 'error' && !/status of 40[01]\b/.test(message.text()))
          problems.push(`console: ${message.text()}`)
      })
      page.on('pageerror', (error) => problems.push(`page: ${error}`))
      // Offline: every request the pages make goes to the server itself.
      page.on('request', (request) => {
        const url = request.url()
        if (!url.startsWith(server.url) && !url.startsWith('data:')) problems.push(`request elsewhere: ${url}`)
      })
      mkdirSync(SHOTS, { recursive: true })
    }, 60_000)

    afterAll(async () => {
      await browser?.close()
      await server?.stop('SIGKILL')
      await receiver?.stop()
      await model?.stop()
      dir.remove()
    })

    const shot = (name: string) =>
      page.screenshot({ path: join(SHOTS, `${name}.png`) as `${string}.png`, fullPage: true })
    const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '')
    /** Waits for the page's path to match; a console error box shown meanwhile fails with its text. */
    const until = async (path: RegExp) => {
      await page.waitForFunction(
        (source) => new RegExp(source).test(location.pathname) || !!document.querySelector('.error'),
        {},
        path.source,
      )
      const error = await page.$('.error')
      if (error) throw new Error(`the console showed an error: ${await error.evaluate((e) => e.textContent)}`)
    }
    const fill = async (selector: string, value: string) => {
      await page.$eval(selector, (e) => ((e as HTMLInputElement).value = ''))
      await page.type(selector, value)
    }

    let workflowId = ''
    let runId = ''

    it(
      'serves the console from the server, with its assets inside the budget and nothing from elsewhere',
      async () => {
        const html = await fetch(`${server.url}/runs?status=success`)
        expect(html.status).toBe(200)
        expect(html.headers.get('content-type')).toContain('text/html')
        // Only the page's own script runs: its nonce, new on every answer, is the one the policy names.
        const policy = html.headers.get('content-security-policy')!
        const body = await html.text()
        const nonce = /nonce="([^"]+)"/.exec(body)![1]
        expect(policy).toContain(`script-src 'nonce-${nonce}'`)
        expect(policy).not.toContain("script-src 'self'")
        expect(await (await fetch(`${server.url}/workflows`)).text()).not.toContain(nonce)
        expect(body).not.toMatch(/https?:\/\//)
        const script = await fetch(`${server.url}/console/app.js`)
        expect(script.status).toBe(200)
        const style = await fetch(`${server.url}/console/app.css`)
        const bytes =
          Bun.gzipSync(new Uint8Array(await script.arrayBuffer())).length +
          Bun.gzipSync(new Uint8Array(await style.arrayBuffer())).length
        expect(bytes).toBeLessThan(BUDGET)
        // The API keeps its own answers: an unknown API path is still the API's 404.
        expect((await fetch(`${server.url}/v1/nothing-here`)).status).toBe(404)
      },
      STEP_MS,
    )

    it(
      "sends a visitor to sign in, and a wrong password gets the API's refusal",
      async () => {
        await page.goto(`${server.url}/workflows`)
        await page.waitForSelector('form.signin')
        expect(page.url()).toContain('/signin?next=')
        await fill('input[name=email]', EMAIL)
        await fill('input[name=password]', 'not the password')
        await page.click('button[type=submit]')
        await page.waitForSelector('.error')
        expect(await text('.error')).toMatch(/email or password|invalid|incorrect/i)
        await shot('sign-in')
      },
      STEP_MS,
    )

    it(
      'signs in and lands on the workflows',
      async () => {
        await fill('input[name=password]', PASSWORD)
        await page.click('button[type=submit]')
        await page.waitForSelector('nav.top')
        await page.waitForFunction(() => location.pathname === '/workflows')
        expect(await text('nav.top .user')).toBe(EMAIL)
      },
      STEP_MS,
    )

    it(
      'creates a workflow from its definition and publishes it',
      async () => {
        await page.waitForSelector('.page-head .actions button')
        await page.click('.page-head .actions button')
        await page.waitForSelector('input[name=name]')
        await fill('input[name=name]', 'Greeter')
        await fill(
          'textarea[name=definition]',
          JSON.stringify({
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['pause'] },
              pause: { type: 'delay', payload: { delayMs: 1500 }, children: ['greet'] },
              greet: { type: 'log', payload: { message: 'hello {{$trigger.body.name}}' } },
            },
          }),
        )
        await page.click('form.card button[type=submit]')
        await until(/^\/workflows\/wf/)
        workflowId = page.url().split('/').pop()!
        await page.waitForSelector('[data-testid="node:greet"]')
        expect(await text('.page-head h1')).toContain('Greeter')
        const publish = await page.$$eval('.page-head .actions button', (buttons) => buttons.map((b) => b.textContent))
        expect(publish).toContain('Publish')
        await page.evaluate(() =>
          [...document.querySelectorAll('.page-head .actions button')]
            .find((b) => b.textContent === 'Publish')!
            .dispatchEvent(new MouseEvent('click', { bubbles: true })),
        )
        await page.waitForSelector('.page-head .badge[data-status="active"]')
        const stored = await api(server.url, 'GET', `/v1/workflows/${workflowId}`, KEY)
        expect(stored.body.data).toMatchObject({ name: 'Greeter', status: 'active', hasLiveVersion: true })
        await shot('workflow')
      },
      STEP_MS,
    )

    it(
      'runs it now and watches its graph turn green live, without reloading',
      async () => {
        await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42))
        await fill('textarea[name=payload]', '{"name":"Ada"}')
        await page.click('form.run-now button[type=submit]')
        await until(/^\/runs\/run_/)
        runId = page.url().split('/').pop()!
        // While the delay holds it, the run is not finished and its last node has not run.
        await page.waitForSelector('svg.graph [data-node="greet"]')
        const early = await page.$eval('svg.graph [data-node="greet"]', (e) => e.getAttribute('data-status'))
        expect(early).not.toBe('success')
        await page.waitForSelector('svg.graph [data-node="greet"][data-status="success"]')
        await page.waitForSelector('.page-head .badge[data-status="success"]')
        expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42)
        expect(await page.$$eval('ol.timeline li', (items) => items.map((i) => i.getAttribute('data-node')))).toEqual([
          'root',
          'pause',
          'greet',
        ])
        const stored = await api(server.url, 'GET', `/v1/runs/${runId}`, KEY)
        expect(stored.body.data.status).toBe('success')
        await page.click('ol.timeline li[data-node="greet"]')
        await page.waitForSelector('.node-details')
        expect(await text('.node-details')).toContain('hello Ada')
        await shot('run')
        // The run's stream ended with the run: the page stops following it (and so asks for it no more).
        await page.waitForSelector('[data-testid="run-stream"][data-state="ended"]')
      },
      STEP_MS,
    )

    it(
      'filters runs by status through the URL, so a view can be shared',
      async () => {
        const another = await api(server.url, 'POST', `/v1/workflows/${workflowId}/run`, KEY, {
          payload: { name: 'Bob' },
        })
        expect(another.status).toBe(200)
        await page.goto(`${server.url}/runs?status=success`)
        await page.waitForSelector(`tr[data-run="${runId}"]`)
        const statuses = await page.$$eval('table.runs .badge', (badges) =>
          badges.map((b) => b.getAttribute('data-status')),
        )
        expect(statuses.length).toBeGreaterThan(0)
        expect(new Set(statuses)).toEqual(new Set(['success']))
        await shot('runs')
        await page.select('select[aria-label=status]', 'running')
        await page.waitForFunction(() => location.search === '?status=running')
        await page.waitForFunction((id) => !document.querySelector(`tr[data-run="${id}"]`), {}, runId)
        await page.goBack()
        await page.waitForFunction(() => location.search === '?status=success')
        await page.waitForSelector(`tr[data-run="${runId}"]`)
      },
      STEP_MS,
    )

    it(
      'approves a waiting approval node from the run page, signed in by cookie',
      async () => {
        const flow = await api(server.url, 'POST', '/v1/workflows', KEY, {
          name: 'Gate',
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['gate'] },
              gate: { type: 'approval', payload: { message: 'ship it?' }, children: ['yes', 'no'] },
              yes: { type: 'log', branch: 'approved', payload: { message: 'shipped' } },
              no: { type: 'log', branch: 'rejected', payload: { message: 'held' } },
            },
          },
        })
        const run = await api(server.url, 'POST', `/v1/workflows/${flow.body.data.id}/run`, KEY, {})
        const runId = run.body.data.runId as string
        await page.goto(`${server.url}/runs/${runId}`)
        await page.waitForSelector('.card.waiting[data-node="gate"] button')
        await shot('run-waiting')
        await page.click('.card.waiting[data-node="gate"] button')
        await page.waitForSelector('svg.graph [data-node="yes"][data-status="success"]')
        await page.waitForSelector('svg.graph [data-node="no"][data-status="skipped"]')
        const stored = (await api(server.url, 'GET', `/v1/runs/${runId}`, KEY)).body.data
        expect(stored.status).toBe('success')
        expect(stored.nodes.gate.result).toMatchObject({ approved: true })
      },
      STEP_MS,
    )

    it(
      "acts on runs in bulk only after showing the server's count, and takes a time range from the URL",
      async () => {
        const hold = await api(server.url, 'POST', '/v1/workflows', KEY, {
          name: 'Holder',
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['hold'] },
              hold: { type: 'delay', payload: { delayMs: 3_600_000 } },
            },
          },
        })
        const holdId = hold.body.data.id as string
        for (let i = 0; i < 3; i++)
          expect((await api(server.url, 'POST', `/v1/workflows/${holdId}/run`, KEY, {})).status).toBe(200)
        for (let i = 0; i < 200; i++) {
          const counts = (await api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${holdId}`, KEY)).body.data
            .counts
          if (counts.waiting === 3) break
          await Bun.sleep(25)
        }
        await page.goto(`${server.url}/runs?workflowId=${holdId}&status=waiting`)
        await page.waitForFunction(() => document.querySelectorAll('tr[data-run]').length === 3)
        const asked: string[] = []
        const answer = (dialog: import('puppeteer-core').Dialog) => {
          asked.push(dialog.message())
          void dialog.accept()
        }
        page.once('dialog', answer)
        await page.evaluate(() =>
          [...document.querySelectorAll('.page-head .actions button')]
            .find((b) => b.textContent?.startsWith('Cancel matching'))!
            .dispatchEvent(new MouseEvent('click', { bubbles: true })),
        )
        await page.waitForSelector('.notice')
        expect(asked).toEqual(['Cancel 3 waiting runs?'])
        expect(await text('.notice')).toBe('Cancelled 3 of 3.')
        const counts = (await api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${holdId}`, KEY)).body.data
          .counts
        expect(counts).toMatchObject({ waiting: 0, cancelled: 3 })
        await shot('runs-bulk')
        // A range that starts tomorrow holds none of them.
        await page.goto(`${server.url}/runs?workflowId=${holdId}&since=${Date.now() + 86_400_000}`)
        await page.waitForSelector('.empty')
        expect(await page.$$('tr[data-run]')).toHaveLength(0)
        expect(await page.$eval('input[aria-label="started from"]', (i) => (i as HTMLInputElement).value)).not.toBe('')
      },
      STEP_MS,
    )

    it(
      'creates an API key and shows the raw key once',
      async () => {
        await page.goto(`${server.url}/keys`)
        await page.waitForSelector('form.card input[name=name]')
        await fill('form.card input[name=name]', 'deploy bot')
        await page.click('form.card button[type=submit]')
        await page.waitForSelector('.shown-once .raw-key')
        const raw = (await text('.shown-once .raw-key')).trim()
        expect(raw).toMatch(/^svcsk_/)
        const me = await api(server.url, 'GET', '/v1/me', raw)
        expect(me.status).toBe(200)
        await shot('keys')
        await page.reload()
        await page.waitForSelector('tr[data-key]')
        expect(await page.content()).not.toContain(raw)
        expect(await page.$$eval('table.list td', (cells) => cells.map((c) => c.textContent))).toContain('deploy bot')
      },
      STEP_MS,
    )

    it(
      'forks a template through the form generated from its props, refusing an invalid value first',
      async () => {
        const tags = await api(server.url, 'GET', '/v1/tags?limit=5', KEY)
        const tag = tags.body.data.items[0].slug as string
        const created = await api(server.url, 'POST', '/v1/templates', KEY, {
          name: 'Payout notice',
          description: 'Tells each recipient what they get.',
          tags: [tag],
          templateProps: [
            {
              key: 'count',
              name: 'How many reminders',
              type: 'integer',
              required: true,
              properties: { minimum: 1, maximum: 10 },
            },
            {
              key: 'mode',
              name: 'Mode',
              type: 'string',
              required: true,
              properties: { enum: ['fast', 'safe'], enumLabels: ['Fast', 'Careful'] },
            },
            {
              key: 'note',
              name: 'Note for careful mode',
              type: 'string',
              properties: { inputType: 'textarea', visibleWhen: { mode: 'safe' } },
            },
            {
              key: 'payer',
              name: 'Paying wallet',
              type: 'string',
              required: true,
              properties: { inputType: 'walletConnector' },
            },
            { key: 'to', name: 'Send the rest to', type: 'string', properties: { inputType: 'recipientAddress' } },
            {
              key: 'from',
              name: 'Our address',
              type: 'string',
              properties: { inputType: 'address', autoFillFromWallet: true },
            },
            {
              key: 'recipients',
              name: 'Recipients',
              type: 'object',
              required: true,
              properties: {
                inputType: 'csvTable',
                minRows: 1,
                maxRows: 3,
                columns: [
                  { key: 'email', required: true },
                  { key: 'amount', type: 'integer' },
                ],
              },
            },
          ],
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['tell'] },
              tell: {
                type: 'log',
                payload: {
                  message:
                    '{{$props.count}} {{$props.mode}} {{$props.note}} {{$props.recipients.email.1}} {{$props.recipients.amount.1}} {{$props.payer}} {{$props.to}} {{$props.from}}',
                },
              },
            },
          },
        })
        expect(created.status).toBe(200)
        const templateId = created.body.data.id as string
        const wallet = await api(server.url, 'POST', '/v1/wallets', KEY, { name: 'treasury' })
        expect(wallet.status).toBe(200)
        const { id: walletId, address } = wallet.body.data as { id: string; address: string }

        await page.goto(`${server.url}/templates?tag=${encodeURIComponent(tag)}`)
        await page.waitForSelector(`[data-template="${templateId}"]`)
        await shot('templates')
        await page.click(`[data-template="${templateId}"] h3 a`)
        await page.waitForSelector('form.props')
        // The note shows only in careful mode.
        expect(await page.$('[data-prop="note"]')).toBeNull()
        expect(await page.$$eval('select[name=mode] option', (o) => o.map((x) => x.textContent))).toEqual([
          '—',
          'Fast',
          'Careful',
        ])
        await page.select('select[name=mode]', 'safe')
        await page.waitForSelector('[data-prop="note"] textarea')
        await page.type('[data-prop="note"] textarea', 'double-check')
        await page.type('input[name=count]', '42')
        // The wallet pickers offer the organization's wallets; "Our address" fills itself and is not shown.
        await page.waitForSelector(`select[name=payer] option[value="${walletId}"]`)
        await page.select('select[name=payer]', walletId)
        await page.select('select[aria-label="to wallet"]', address)
        expect(await page.$eval('input[name=to]', (i) => (i as HTMLInputElement).value)).toBe(address)
        expect(await page.$('[data-prop="from"]')).toBeNull()
        // The table grows to its maximum of three rows and no further; one row is removed again.
        await page.click('[data-prop="recipients"] tfoot button')
        await page.click('[data-prop="recipients"] tfoot button')
        expect(
          await page.$eval('[data-prop="recipients"] tfoot button', (b) => (b as HTMLButtonElement).disabled),
        ).toBe(true)
        await page.click('[data-prop="recipients"] tbody tr:nth-child(3) button')
        expect(await page.$eval('table.csv', (t) => t.getAttribute('data-rows'))).toBe('2')
        await page.type('input[aria-label="recipients email 1"]', 'ada@example.com')
        await page.type('input[aria-label="recipients amount 1"]', '5')
        await page.type('input[aria-label="recipients email 2"]', 'bob@example.com')
        await page.type('input[aria-label="recipients amount 2"]', '7')
        const before = (await api(server.url, 'GET', '/v1/workflows?limit=100', KEY)).body.data.items.length
        await page.click('form.props button[type=submit]')
        await page.waitForSelector('[data-prop="count"] .field-error')
        expect(await text('[data-prop="count"] .field-error')).toMatch(/10/)
        expect((await api(server.url, 'GET', '/v1/workflows?limit=100', KEY)).body.data.items.length).toBe(before)
        await shot('template-fork-refused')

        await fill('input[name=count]', '3')
        await page.click('form.props button[type=submit]')
        await until(/^\/workflows\/wf/)
        const forkedId = page.url().split('/').pop()!
        const run = await api(server.url, 'POST', `/v1/workflows/${forkedId}/run`, KEY, {})
        expect(run.status).toBe(200)
        let finished: any
        for (let i = 0; i < 200 && finished?.status !== 'success'; i++) {
          finished = (await api(server.url, 'GET', `/v1/runs/${run.body.data.runId}`, KEY)).body.data
          if (finished.status !== 'success') await Bun.sleep(50)
        }
        expect(finished.nodes.tell.result.message).toBe(
          `3 safe double-check bob@example.com 7 ${walletId} ${address} ${address}`,
        )
      },
      STEP_MS,
    )

    it(
      'builds beside a workflow with the AI chat: the answer streams in and the proposed draft is drawn',
      async () => {
        const definition = {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['pause'] },
            pause: { type: 'delay', payload: { delayMs: 1500 }, children: ['greet'] },
            greet: { type: 'log', payload: { message: 'hello {{$trigger.body.name}}' }, children: ['again'] },
            again: { type: 'log', payload: { message: 'hello again {{$trigger.body.name}}' } },
          },
        }
        model.queue(
          toolTurn('propose_workflow', { name: 'Greeter', description: 'Greets twice', definition }),
          textTurn('Added a second greeting.'),
        )
        await page.goto(`${server.url}/workflows/${workflowId}`)
        await page.waitForSelector('aside.chat button[type=submit]:not([disabled])')
        await page.type('textarea[name=chat-message]', 'Greet twice')
        await page.click('aside.chat button[type=submit]')
        await page.waitForSelector('[data-testid="node:again"]')
        await page.waitForFunction(
          () => document.querySelector('.chat-lines li:last-child')?.textContent === 'Added a second greeting.',
        )
        expect(await page.$$eval('.chat-lines li', (items) => items.map((i) => i.className))).toEqual([
          'chat-user',
          'chat-assistant',
        ])
        const stored = (await api(server.url, 'GET', `/v1/workflows/${workflowId}`, KEY)).body.data
        expect(stored.hasDraft).toBe(true)
        expect(Object.keys(stored.definition.nodes)).toContain('again')
        await shot('builder-chat')
      },
      STEP_MS,
    )

    it(
      'adds an execution hook (its secret shown once), lists its deliveries with their answers, and replays one',
      async () => {
        await page.goto(`${server.url}/hooks`)
        await page.waitForSelector('input[name=hook-name]')
        await fill('input[name=hook-name]', 'audit log')
        await fill('input[name=hook-url]', `${receiver.url}/hook`)
        await page.click('form.card.inline button[type=submit]')
        await page.waitForSelector('.shown-once .raw-key')
        expect((await text('.shown-once .raw-key')).trim()).toMatch(/^whsec_/)
        await page.waitForSelector('tr[data-endpoint]')
        const run = await api(server.url, 'POST', `/v1/workflows/${workflowId}/run`, KEY, { payload: { name: 'Hook' } })
        expect(run.status).toBe(200)
        const runId = run.body.data.runId as string
        const delivered = async () => {
          for (let i = 0; i < 200; i++) {
            const items = (
              await api(server.url, 'GET', `/v1/execution-webhooks/deliveries?runId=${runId}&limit=100`, KEY)
            ).body.data.items
            if (items.some((d: any) => d.eventType === 'run.succeeded' && d.status === 'success')) return items
            await Bun.sleep(50)
          }
          throw new Error('no delivery of run.succeeded')
        }
        const items = await delivered()
        await page.select('select[aria-label="delivery status"]', 'success')
        await page.waitForFunction(() => location.search.includes('status=success'))
        const row = `tr[data-delivery="${items.find((d: any) => d.eventType === 'run.succeeded').id}"]`
        await page.waitForSelector(row)
        expect(await text(row)).toContain('200')
        await shot('hooks')
        const before = receiver.requests.length
        await page.click(`${row} .actions button`)
        for (let i = 0; i < 200 && receiver.requests.length === before; i++) await Bun.sleep(25)
        expect(receiver.requests.length).toBe(before + 1)
        expect(JSON.parse(receiver.requests.at(-1)!.body).type).toBe('run.succeeded')
      },
      STEP_MS,
    )

    it(
      "keeps a connector's secret write-only: masked in the list, kept when an edit leaves it empty",
      async () => {
        const token = `xoxb-${crypto.randomUUID()}`
        await page.goto(`${server.url}/connectors`)
        await page.waitForSelector('.page-head .actions button')
        await page.click('.page-head .actions button')
        await page.waitForSelector('form.connector-form')
        await page.select('select[name=type]', 'chatapp')
        await fill('input[name=connector-name]', 'team chat')
        await fill('input[name=data-teamId]', 'T0123ABCD')
        await fill('input[name=data-botToken]', token)
        expect(await page.$eval('input[name=data-botToken]', (i) => (i as HTMLInputElement).type)).toBe('password')
        await page.click('form.connector-form button[type=submit]')
        await page.waitForSelector('tr[data-connector]')
        expect(await page.content()).not.toContain(token)
        expect(await text('tr[data-connector] code.masked')).toContain(token.slice(-4))
        await page.click('tr[data-connector] .actions button')
        await page.waitForSelector('form.connector-form')
        expect(await page.$eval('input[name=data-botToken]', (i) => (i as HTMLInputElement).value)).toBe('')
        await fill('input[name=connector-name]', 'team chat (main)')
        await page.click('form.connector-form button[type=submit]')
        await page.waitForFunction(() =>
          document.querySelector('tr[data-connector]')?.textContent?.includes('team chat (main)'),
        )
        await shot('connectors')
        const stored = (await api(server.url, 'GET', '/v1/connectors', KEY)).body.data.items[0]
        expect(stored).toMatchObject({ name: 'team chat (main)', type: 'chatapp' })
        expect(stored.maskedData.teamId).toBe('T0123ABCD')
        expect(stored.maskedData.botToken).toContain(token.slice(-4))
      },
      STEP_MS,
    )

    it(
      'lists members, invites a person with a link shown once, and the person joins through it',
      async () => {
        await page.goto(`${server.url}/people`)
        await page.waitForSelector('tr[data-member]')
        await page.waitForSelector('input[name=invite-email]')
        expect(await text('tr[data-member]')).toContain(EMAIL)
        await fill('input[name=invite-email]', 'grace@example.com')
        await page.select('select[name=invite-role]', 'viewer')
        await page.click('form.card.inline button[type=submit]')
        await page.waitForSelector('.shown-once .raw-key')
        const link = (await text('.shown-once .raw-key')).trim()
        expect(link).toContain('/signin?invitation=')
        await page.waitForSelector('tr[data-invitation]')
        await shot('people')
        // Grace opens the link in a browser of her own.
        const other = await browser.createBrowserContext()
        const grace = await other.newPage()
        await grace.goto(link)
        await grace.waitForSelector('input[name=name]')
        await grace.type('input[name=name]', 'Grace')
        await grace.type('input[name=password]', 'another long passphrase')
        await grace.click('button[type=submit]')
        await grace.waitForFunction(() => location.pathname === '/workflows')
        expect(await grace.$eval('nav.top .user', (e) => e.textContent)).toBe('grace@example.com')
        await other.close()
        await page.reload()
        await page.waitForFunction(() =>
          [...document.querySelectorAll('tr[data-member]')].some((r) => r.textContent?.includes('grace@example.com')),
        )
      },
      STEP_MS,
    )

    it(
      "switches interests on in the person's settings and picks interest tags",
      async () => {
        await page.goto(`${server.url}/settings`)
        await page.waitForSelector('input[name=interests]')
        await page.waitForSelector('.chips [data-tag]')
        expect(await page.$eval('input[name=interests]', (i) => (i as HTMLInputElement).checked)).toBe(false)
        await page.click('input[name=interests]')
        await page.waitForFunction(() => (document.querySelector('input[name=interests]') as HTMLInputElement).checked)
        const slug = await page.$eval('.chips [data-tag]', (b) => b.getAttribute('data-tag')!)
        await page.click(`.chips [data-tag="${slug}"]`)
        await page.waitForSelector(`.chips [data-tag="${slug}"].on`)
        // The settings are the person's: read back through their own session.
        const cookies = await page.cookies()
        const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ')
        const read = async (path: string) =>
          (await (await fetch(`${server.url}${path}`, { headers: { cookie } })).json()).data
        expect(await read('/v1/user/interests/settings')).toEqual({ enabled: true })
        expect((await read('/v1/user/interests')).tags).toEqual([slug])
        await shot('settings')
      },
      STEP_MS,
    )

    it(
      'approves a public template from the moderation queue of the operator organization',
      async () => {
        const tags = (await api(server.url, 'GET', '/v1/tags?limit=5', KEY)).body.data.items
        // Submitted by another organization: the queue is for everyone's submissions.
        const env = { AUTOMATON_DATA_DIR: dir.path }
        expect((await runCli(['orgs', 'create', 'acme-labs'], env)).code).toBe(0)
        const made = await runCli(['keys', 'create', '--org', 'acme-labs', '--name', 'author'], env)
        const authorKey = JSON.parse(made.stdout).key as string
        const submitted = await api(server.url, 'POST', '/v1/templates', authorKey, {
          name: 'Shared greeter',
          description: 'For everyone',
          visibility: 'public',
          tags: [tags[0].slug],
          definition: {
            triggerNodeIds: ['root'],
            nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } },
          },
        })
        expect(submitted.body.data.moderationStatus).toBe('pending')
        await page.goto(`${server.url}/moderation`)
        await page.waitForSelector(`tr[data-template="${submitted.body.data.id}"]`)
        expect(await text(`tr[data-template="${submitted.body.data.id}"]`)).toContain('acme-labs')
        await shot('moderation')
        await page.click(`tr[data-template="${submitted.body.data.id}"] .actions button`)
        await page.waitForFunction(
          (id) => !document.querySelector(`tr[data-template="${id}"]`),
          {},
          submitted.body.data.id,
        )
        expect(
          (await api(server.url, 'GET', `/v1/templates/${submitted.body.data.id}`, authorKey)).body.data
            .moderationStatus,
        ).toBe('approved')
      },
      STEP_MS,
    )

    it(
      'starts an agent run and follows it on its run page',
      async () => {
        model.queue(textTurn('Nothing to research: the answer is 42.'))
        await page.goto(`${server.url}/agents`)
        await page.waitForSelector('[data-agent="researcher"]')
        await page.select('select[name=agent]', 'researcher')
        await page.type('textarea[name=prompt]', 'What is the answer?')
        await page.click('form.card button[type=submit]')
        await until(/^\/runs\/run_/)
        await page.waitForSelector('.page-head .badge[data-status="success"]')
        await shot('agent-run')
      },
      STEP_MS,
    )

    it(
      'shows paid workflows and imported x402 endpoints, none yet',
      async () => {
        await page.goto(`${server.url}/x402`)
        await page.waitForFunction(() => document.querySelectorAll('.empty').length === 2)
        expect(await page.$$eval('.empty', (e) => e.map((x) => x.textContent))).toEqual([
          'No workflow is paid.',
          'No endpoint imported yet.',
        ])
      },
      STEP_MS,
    )

    it(
      'logged no error on any page',
      () => {
        expect(problems).toEqual([])
      },
      STEP_MS,
    )
  })
