/** The built-in nodes and expressions, through real runs on both stores. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear, runAndWait, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`built-in nodes (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    it('journals nodes that answer at once and nodes that are awaited in the same order', async () => {
      const w = await createWorkflow(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', payload: {}, children: ['a'] },
            a: { type: 'log', payload: { message: 'first' }, children: ['code'] },
            code: {
              type: 'code-transform',
              payload: { code: 'function transform(i) { return i.n + 1 }', input: { n: 1 } },
              children: ['check'],
            },
            check: {
              type: 'if',
              payload: { condition: { $and: [{ '{{code.result.output}}': { $gt: 1 } }] } },
              children: ['yes', 'no'],
            },
            yes: { type: 'log', branch: 'then', payload: { message: 'yes' }, children: ['last'] },
            no: { type: 'log', branch: 'else', payload: { message: 'no' } },
            last: { type: 'set-variable', payload: { name: 'seen', value: '{{code.result.output}}' } },
          },
        },
        variableDefs: [{ name: 'seen', type: 'number', default: 0 }],
      })
      const run = await runAndWait(t, w.id, {})
      expect(run.status).toBe('success')
      const events = await t.system.store.all<{ seq: number; type: string; node_id: string | null }>(
        'SELECT seq, type, node_id FROM events WHERE run_id = $1 ORDER BY seq',
        [run.id],
      )
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      expect(events.map((e) => `${e.type} ${e.node_id ?? ''}`.trim())).toEqual([
        'run.started',
        'node.succeeded root',
        'node.started a',
        'node.succeeded a',
        'node.started code',
        'node.succeeded code',
        'node.started check',
        'node.succeeded check',
        'node.skipped no',
        'node.started yes',
        'node.succeeded yes',
        'node.started last',
        'node.succeeded last',
        'run.succeeded',
      ])
      expect(run.vars.seen).toBe(2)
    })

    it('runs a five-node workflow and keeps the JSON type of whole expressions', async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          {
            a: {
              type: 'log',
              payload: { message: 'order {{root.result.body.order.id}} for {{root.result.body.amount}}' },
            },
            b: { type: 'set-variable', payload: { name: 'total', value: '{{root.result.body.amount}}' } },
            c: {
              type: 'code-transform',
              payload: {
                code: 'function transform(i) { return { doubled: i.n * 2, tags: i.tags } }',
                input: { n: '{{$vars.total}}', tags: '{{root.result.body.tags}}' },
              },
            },
            d: { type: 'pluck', payload: { array: '{{root.result.body.lines}}', fields: ['sku', 'price.amount'] } },
            e: { type: 'log', payload: { message: '{{c.result.output}}' } },
          },
          ['a', 'b', 'c', 'd', 'e'],
        ),
        variableDefs: [{ name: 'total', type: 'number', default: 0 }],
      })
      const run = await runAndWait(t, w.id, {
        order: { id: 'A-1' },
        amount: 21,
        tags: ['x', 'y'],
        lines: [{ sku: 's1', price: { amount: 5 }, extra: true }],
      })
      expect(run.status).toBe('success')
      expect(run.nodes.a.result.message).toBe('order A-1 for 21')
      expect(run.nodes.c.input.input).toEqual({ n: 21, tags: ['x', 'y'] })
      expect(run.nodes.c.result.output).toEqual({ doubled: 42, tags: ['x', 'y'] })
      expect(run.nodes.d.result.items).toEqual([{ sku: 's1', 'price.amount': 5 }])
      expect(run.nodes.e.result.message).toEqual({ doubled: 42, tags: ['x', 'y'] })
      expect(run.vars.total).toBe(21)
      const events = await t.system.store.all<{ seq: number; type: string }>(
        'SELECT seq, type FROM events WHERE run_id = $1 ORDER BY seq',
        [run.id],
      )
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      expect(events[0].type).toBe('run.started')
      expect(events.at(-1)!.type).toBe('run.succeeded')
      expect(events.filter((e) => e.type === 'node.started')).toHaveLength(5)
    })

    it('takes one branch of an if and skips the other', async () => {
      const w = await createWorkflow(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['check'] },
            check: {
              type: 'if',
              payload: {
                condition: {
                  $and: [
                    { '{{root.result.body.amount}}': { $gt: 100 } },
                    { '{{root.result.body.currency}}': { $in: ['usd', 'eur'] } },
                  ],
                },
              },
              children: ['big', 'small'],
            },
            big: {
              type: 'log',
              branch: 'then',
              payload: { message: 'big {{root.result.body.amount}}' },
              children: ['after'],
            },
            after: { type: 'log', payload: { message: 'after big' } },
            small: { type: 'log', branch: 'else', payload: { message: 'small' } },
          },
        },
      })
      const big = await runAndWait(t, w.id, { amount: '150', currency: 'usd' })
      expect(big.nodes.check.result).toEqual({ value: true })
      expect(big.nodes.check.branch).toBe('then')
      expect(big.nodes.big.status).toBe('success')
      expect(big.nodes.after.status).toBe('success')
      expect(big.nodes.small.status).toBe('skipped')
      const small = await runAndWait(t, w.id, { amount: 50, currency: 'usd' })
      expect(small.nodes.small.result.message).toBe('small')
      expect(small.nodes.big.status).toBe('skipped')
      expect(small.nodes.after.status).toBe('skipped')
    })

    it("loops over items with for-each, nested, and gathers each item's results", async () => {
      const w = await createWorkflow(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['orders'] },
            orders: {
              type: 'for-each',
              payload: { array: '{{root.result.body.orders}}' },
              loopBody: ['label', 'lines'],
              children: ['done'],
            },
            label: { type: 'log', payload: { message: '#{{$index}} {{$item.id}}' } },
            lines: { type: 'for-each', payload: { array: '{{$item.lines}}' }, loopBody: ['line'] },
            line: { type: 'log', payload: { message: '{{$parent_item.id}}/{{$item}} via {{$for.orders.index}}' } },
            done: { type: 'log', payload: { message: '{{orders.result.results.1.label.message}}' } },
          },
        },
      })
      const run = await runAndWait(t, w.id, {
        orders: [
          { id: 'a', lines: ['x', 'y'] },
          { id: 'b', lines: ['z'] },
        ],
      })
      expect(run.status).toBe('success')
      const results = run.nodes.orders.result.results
      expect(results).toHaveLength(2)
      expect(results[0].label).toEqual({ message: '#0 a' })
      expect(results[0].lines.results.map((r: { line: { message: string } }) => r.line.message)).toEqual([
        'a/x via 0',
        'a/y via 0',
      ])
      expect(results[1].lines.results[0].line.message).toBe('b/z via 1')
      expect(run.nodes.line.iterations).toHaveLength(3)
      expect(run.nodes.done.result.message).toBe('#1 b')
    })

    it('fails a for-each over more than 100 items, naming the limit', async () => {
      const w = await createWorkflow(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['loop'] },
            loop: { type: 'for-each', payload: { array: '{{root.result.body.items}}' }, loopBody: ['x'] },
            x: { type: 'log', payload: { message: 'x' } },
          },
        },
      })
      const run = await runAndWait(t, w.id, { items: Array.from({ length: 101 }, (_, i) => i) })
      expect(run.status).toBe('failure')
      expect(run.nodes.loop.error).toContain('at most 100')
    })

    it('filters with conditions on {{$item}}, and matches regular expressions', async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          {
            f: {
              type: 'filter',
              payload: {
                array: '{{root.result.body.people}}',
                condition: { $and: [{ '{{$item.age}}': { $gte: 18 } }, { '{{$item.name}}': { $startsWith: 'A' } }] },
              },
            },
            r: { type: 'regex', payload: { input: '{{root.result.body.text}}', pattern: '(?<year>\\d{4})-(\\d{2})' } },
            bad: {
              type: 'regex',
              payload: { input: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', pattern: '(a+)+$' },
              onError: 'continue',
            },
          },
          ['f', 'r', 'bad'],
        ),
      })
      const run = await runAndWait(
        t,
        w.id,
        {
          people: [
            { name: 'Ann', age: 30 },
            { name: 'Al', age: 12 },
            { name: 'Bo', age: 40 },
          ],
          text: 'due 2026-11 now',
        },
        20_000,
      )
      expect(run.nodes.f.result).toEqual({ items: [{ name: 'Ann', age: 30 }], count: 1 })
      expect(run.nodes.r.result).toEqual({ matched: true, matches: { 0: '2026-11', 1: '2026', 2: '11', year: '2026' } })
      // A pattern that backtracks forever is stopped by the sandbox's time limit, not the engine.
      expect(run.nodes.bad.status).toBe('failure')
      expect(run.status).toBe('partial')
    })

    it('runs user code in a sandbox without network or host access, bounded in time', async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          {
            probe: {
              type: 'code-transform',
              payload: {
                code: 'function transform() { console.log("probing"); return [typeof fetch, typeof process, typeof Bun, typeof require] }',
              },
            },
            spin: {
              type: 'code-transform',
              payload: { code: 'function transform() { while (true) {} }' },
              onError: 'continue',
            },
          },
          ['probe', 'spin'],
        ),
      })
      const run = await runAndWait(t, w.id, {}, 20_000)
      expect(run.nodes.probe.result.output).toEqual(['undefined', 'undefined', 'undefined', 'undefined'])
      expect(run.nodes.spin.status).toBe('failure')
      expect(run.nodes.spin.error).toMatch(/did not finish within/)
      const logs = await t.system.store.get<{ data: string }>(
        "SELECT data FROM events WHERE run_id = $1 AND node_id = 'probe' AND type = 'node.succeeded'",
        [run.id],
      )
      expect(JSON.parse(logs!.data).logs).toEqual(['probing'])
    })

    it('sends HTTP requests with an idempotency key and decodes JSON answers', async () => {
      receiver.respond((req) => Response.json({ echo: JSON.parse(req.body || '{}'), path: req.path }, { status: 201 }))
      const w = await createWorkflow(t, {
        definition: linear(
          {
            call: {
              type: 'http-request',
              payload: {
                method: 'POST',
                url: `${receiver.url}/orders?x=1`,
                headers: { 'x-trace': '{{root.result.body.trace}}' },
                body: { id: '{{root.result.body.id}}' },
              },
            },
            hook: {
              type: 'send-webhook',
              payload: { url: `${receiver.url}/hook`, body: { status: '{{call.result.status}}' } },
            },
          },
          ['call', 'hook'],
        ),
      })
      const before = receiver.requests.length
      const run = await runAndWait(t, w.id, { id: 7, trace: 't-1' })
      expect(run.status).toBe('success')
      expect(run.nodes.call.result.status).toBe(201)
      expect(run.nodes.call.result.body).toEqual({ echo: { id: 7 }, path: '/orders?x=1' })
      const [call, hook] = receiver.requests.slice(before)
      expect(call.headers['x-trace']).toBe('t-1')
      expect(call.headers['content-type']).toBe('application/json')
      expect(call.headers['idempotency-key']).toBe(`${run.id}:call:1`)
      expect(JSON.parse(hook.body)).toEqual({ status: 201 })
    })

    it('fails an HTTP node on an error status, and refuses private targets that are not allowed', async () => {
      receiver.respond(() => new Response('nope', { status: 503 }))
      const w = await createWorkflow(t, {
        definition: linear(
          {
            call: { type: 'http-request', payload: { url: `${receiver.url}/down` }, onError: 'continue' },
            meta: {
              type: 'http-request',
              payload: { url: 'http://169.254.169.254/latest/meta-data' },
              onError: 'continue',
            },
            lenient: { type: 'http-request', payload: { url: `${receiver.url}/down`, failOnError: false } },
          },
          ['call', 'meta', 'lenient'],
        ),
      })
      const run = await runAndWait(t, w.id)
      expect(run.nodes.call.status).toBe('failure')
      expect(run.nodes.call.error).toContain('503')
      expect(run.nodes.meta.status).toBe('failure')
      expect(run.nodes.meta.error).toMatch(/refused|forbidden|metadata/i)
      expect(run.nodes.lenient.result.status).toBe(503)
      expect(run.status).toBe('partial')
      receiver.respond(() => Response.json({ ok: true }))
    })

    it("starts another workflow's live version with trigger-workflow", async () => {
      const child = await createLive(t, {
        name: 'child',
        definition: linear({ got: { type: 'log', payload: { message: '{{$trigger.body.greeting}}' } } }, ['got']),
      })
      const parent = await createWorkflow(t, {
        definition: linear(
          {
            start: {
              type: 'trigger-workflow',
              payload: { workflowId: child.id, payload: { greeting: 'hi {{root.result.body.who}}' } },
            },
          },
          ['start'],
        ),
      })
      const run = await runAndWait(t, parent.id, { who: 'kid' })
      const childRun = await waitForRun(t, run.nodes.start.result.runId)
      expect(childRun.workflowId).toBe(child.id)
      expect(childRun.triggeredBy).toBe('workflow')
      expect(childRun.nodes.got.result.message).toBe('hi kid')
    })

    it('keeps persist variables between runs and resets the others', async () => {
      const w = await createLive(t, {
        variableDefs: [
          { name: 'count', type: 'number', default: 0, lifetime: 'persist' },
          { name: 'scratch', type: 'text', default: 'fresh', lifetime: 'reset' },
        ],
        definition: linear(
          {
            inc: {
              type: 'code-transform',
              payload: { code: 'function transform(i) { return i + 1 }', input: '{{$vars.count}}' },
            },
            save: { type: 'set-variable', payload: { name: 'count', value: '{{inc.result.output}}' } },
            mark: { type: 'set-variable', payload: { name: 'scratch', value: 'used {{$vars.scratch}}' } },
          },
          ['inc', 'save', 'mark'],
        ),
      })
      const first = await runAndWait(t, w.id)
      const second = await runAndWait(t, w.id)
      expect(first.vars).toEqual({ count: 1, scratch: 'used fresh' })
      expect(second.vars).toEqual({ count: 2, scratch: 'used fresh' })
    })

    it("checks an API run's payload against the inputSchema", async () => {
      const w = await createWorkflow(t, {
        definition: {
          ...linear({ a: { type: 'log', payload: { message: 'x' } } }, ['a']),
          inputSchema: [
            { key: 'email', type: 'string', required: true },
            { key: 'n', type: 'number' },
          ],
        },
      })
      const r = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { n: 'three' } } })
      expect(r.status).toBe(400)
      expect(r.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['/payload/email', '/payload/n'])
      expect(
        (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { email: 'a@b.c', n: 3 } } })).status,
      ).toBe(200)
    })
  })
}
