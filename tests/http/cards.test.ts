/**
 * Agent cards: details sealed and never answered; allowances made by a person only; disclosure
 * handles minted once per allowed use, every refusal the same 403; a handle redeemed once, at an
 * allowed merchant (a local receiver), inside an agent's HTTP request — never after expiry, never
 * at another host; and the card number nowhere in the database files, the run record, the
 * stream, or hook deliveries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineAgent, definePlugin } from '../../core/plugin/sdk.ts'
import {
  finish,
  type ScriptedOpenAi,
  startScriptedOpenAi,
  textDelta,
  toolFragment,
  usageOnly,
} from '../helpers/openai-server.ts'
import { createSkewedClock } from '../helpers/clock.ts'
import { addMember } from '../helpers/people.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { readSse } from '../helpers/sse.ts'
import { openTestSystem, recordingLogger, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

const NUMBER = '4242424242424242'
const CARD = {
  name: 'Ops Visa',
  number: '4242 4242 4242 4242',
  expMonth: 12,
  expYear: 2031,
  cvc: '737',
  holderName: 'Ada Ops',
}

const shopper = definePlugin({
  id: 'shop-agents',
  agents: [
    defineAgent({
      type: 'shopper',
      name: 'Shopper',
      description: 'Buys things',
      system: 'Buy what you are asked to.',
      tools: ['http-request', 'automaton-api'],
      permissions: ['card:disclose', 'run:read'],
      maxSteps: 4,
    }),
  ],
})

const toolTurn = (name: string, args: unknown) => ({
  steps: [
    toolFragment(0, { id: `call_${name}`, name, arguments: JSON.stringify(args) }),
    finish('tool_calls'),
    usageOnly(1000, 50),
  ],
})
const textTurn = (text: string) => ({ steps: [textDelta(text), finish('stop'), usageOnly(1000, 50)] })

for (const kind of storeKinds()) {
  describe(`agent cards and disclosures (${kind})`, () => {
    let t: TestSystem
    let model: ScriptedOpenAi
    let merchant: Receiver
    let hooks: Receiver
    let cardId: string
    let person: { userId: string; token: string }
    let discloser: string
    let reader: string
    let release!: () => void
    const logger = recordingLogger()
    // The real time, moved on by the test when a handle is to expire.
    const clock = createSkewedClock()

    beforeAll(async () => {
      model = startScriptedOpenAi()
      merchant = startReceiver()
      hooks = startReceiver()
      t = await openTestSystem(
        kind,
        {
          AUTOMATON_AI_BASE_URL: model.url,
          AUTOMATON_AI_MODEL: 'scripted',
          AUTOMATON_AI_DEFAULT_CREDITS: '100',
          AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
          AUTOMATON_HOOK_ALLOW_HTTP: 'true',
          AUTOMATON_DISCLOSURE_TTL: '2s',
        },
        { plugins: [shopper], logger, clock },
      )
      person = await addMember(t, `cards-${kind}@example.com`, 'owner')
      const account = await t.call('POST', '/v1/service-accounts', {
        body: { name: 'payer', permissions: ['card:disclose'] },
      })
      discloser = (
        await t.call('POST', '/v1/api-keys', { body: { name: 'payer', serviceAccountId: account.body.data.id } })
      ).body.data.key
      const readerAccount = await t.call('POST', '/v1/service-accounts', {
        body: { name: 'reader', permissions: ['card:read', 'run:read'] },
      })
      reader = (
        await t.call('POST', '/v1/api-keys', { body: { name: 'reader', serviceAccountId: readerAccount.body.data.id } })
      ).body.data.key
      await t.call('POST', '/v1/execution-webhooks', { body: { name: 'all', url: `${hooks.url}/events` } })
    })
    afterAll(async () => {
      release?.()
      await t?.close()
      await model?.stop()
      await merchant?.stop()
      await hooks?.stop()
    })

    const asPerson = (method: string, path: string, body?: unknown) =>
      t.call(method, path, { key: person.token, body, headers: { 'x-org-id': t.orgId } })
    const disclose = (id: string, key: string | undefined, runId?: string) =>
      t.call('POST', `/v1/agent-cards/${id}/disclosure`, { key, headers: runId ? { 'x-run-id': runId } : {} })

    it('seals the details and answers only last4, brand and expiry', async () => {
      const r = await t.call('POST', '/v1/agent-cards', { body: CARD })
      expect(r.status).toBe(200)
      expect(r.body.data).toEqual({
        id: expect.stringMatching(/^card_/),
        name: 'Ops Visa',
        brand: 'visa',
        last4: '4242',
        expMonth: 12,
        expYear: 2031,
        createdAt: expect.any(String),
      })
      cardId = r.body.data.id
      expect(JSON.stringify((await t.call('GET', '/v1/agent-cards')).body)).not.toContain(NUMBER)
      expect(
        (await t.call('POST', '/v1/agent-cards', { body: { ...CARD, number: '4242424242424241' } })).body.details[0]
          .path,
      ).toBe('/number')
      expect((await t.call('POST', '/v1/agent-cards', { body: { ...CARD, expYear: 2020 } })).status).toBe(400)
    })

    it("lets only a person allow a card's use", async () => {
      const allowance = {
        agentTypes: ['shopper'],
        merchants: [new URL(merchant.url).host],
        maxUses: 1,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      }
      const byKey = await t.call('POST', `/v1/agent-cards/${cardId}/allowances`, { body: allowance })
      expect(byKey.status).toBe(403)
      expect(byKey.body.message).toContain('person')
      const made = await asPerson('POST', `/v1/agent-cards/${cardId}/allowances`, allowance)
      expect(made.status).toBe(200)
      expect(made.body.data).toMatchObject({ agentTypes: ['shopper'], maxUses: 1, uses: 0, createdBy: person.userId })
      expect(
        (await asPerson('POST', `/v1/agent-cards/${cardId}/allowances`, { ...allowance, merchants: ['not a host!'] }))
          .status,
      ).toBe(400)
    })

    it("redeems a handle once, inside the agent's HTTP request to the allowed merchant, and keeps the number out of everything it records", async () => {
      let held!: () => void
      const hold = new Promise<void>((resolve) => (held = resolve))
      release = held
      merchant.respond(async (q) => {
        if (q.path === '/browse') await hold
        // A careless merchant echoes the card back.
        return Response.json({ ok: true, echoed: q.body })
      })
      model.queue(toolTurn('http-request', { url: `${merchant.url}/browse` }))
      const started = await t.call('POST', '/v1/agent-runs', { body: { agentType: 'shopper', prompt: 'Buy the book' } })
      expect(started.status).toBe(200)
      const runId = started.body.data.runId
      const stream = readSse(
        await t.system.app.handle(
          new Request(`http://localhost/v1/executions/${runId}/stream`, {
            headers: { authorization: `Bearer ${t.key}` },
          }),
        ),
      )
      await waitForRun(t, runId, (r) => r.nodes.tools_1?.status === 'running')

      // Every refusal is one 403 body: no permission, unknown card, another organization's card,
      // no run, a run the allowance does not cover.
      const other = await t.newOrganization(`cards-other-${kind}`)
      const foreign = (await t.call('POST', '/v1/agent-cards', { key: other.key, body: CARD })).body.data.id
      const plainRun = (
        await t.call(
          'POST',
          `/v1/workflows/${(await t.call('POST', '/v1/workflows', { body: { definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual', children: [] } } } } })).body.data.id}/run`,
          { body: {} },
        )
      ).body.data.runId
      const refusals = [
        await disclose(cardId, reader, runId).then((r) => ({ ...r, why: 'a key without card:disclose' })),
        await disclose('card_nope', discloser, runId).then((r) => ({ ...r, why: 'unknown card' })),
        await disclose(foreign, discloser, runId).then((r) => ({ ...r, why: "another organization's card" })),
        await disclose(cardId, discloser).then((r) => ({ ...r, why: 'no run' })),
        await disclose(cardId, discloser, plainRun).then((r) => ({ ...r, why: 'a run the allowance does not cover' })),
      ]
      const bodies = refusals.map((r) => ({
        why: r.why,
        status: r.status,
        body: JSON.stringify({ ...r.body, requestId: undefined }),
      }))
      for (const b of bodies) expect({ why: b.why, status: b.status }).toEqual({ why: b.why, status: 403 })
      expect(new Set(bodies.map((b) => b.body)).size).toBe(1)

      // The run's own disclosure: one handle, for this run; the allowance is then used up.
      const minted = await disclose(cardId, discloser, runId)
      expect(minted.status).toBe(200)
      expect(minted.body.data).toEqual({
        cardId,
        handle: expect.stringMatching(/^cdh_/),
        expiresAt: expect.any(String),
      })
      const handle = minted.body.data.handle as string
      const usedUp = await disclose(cardId, discloser, runId)
      expect(usedUp.status).toBe(403)
      expect(JSON.stringify({ ...usedUp.body, requestId: undefined })).toBe(bodies[0].body)

      // The model pays with the handle at the merchant, then tries it again at another host, then answers.
      model.queue(
        toolTurn('http-request', {
          url: `${merchant.url}/pay`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: `{"card":"{{$card.${handle}.number}}","cvc":"{{$card.${handle}.cvc}}","exp":"{{$card.${handle}.expMonth}}/{{$card.${handle}.expYear}}"}`,
        }),
        toolTurn('http-request', {
          url: `http://localhost:${new URL(merchant.url).port}/pay-again`,
          method: 'POST',
          body: `{"card":"{{$card.${handle}.number}}"}`,
        }),
        textTurn('Paid.'),
      )
      held()
      const run = await waitForRun(t, runId, undefined, 20_000)
      expect(run.status).toBe('success')
      const paid = merchant.requests.find((q) => q.path === '/pay')!
      expect(JSON.parse(paid.body)).toEqual({ card: NUMBER, cvc: '737', exp: '12/2031' })
      // The second use (another host, and used already) never reached anyone.
      expect(merchant.requests.some((q) => q.path === '/pay-again')).toBe(false)
      const second = (run.nodes.tools_3.result.transcript as Array<{ role: string; content: string }>).at(-1)!.content
      expect(second).toMatch(/used already|not allowed/)

      // The number is in none of what was recorded.
      const record = JSON.stringify(run)
      expect(record).not.toContain(NUMBER)
      expect(record).toContain(`{{$card.${handle}.number}}`)
      expect(record).toContain('[card]')
      const events = await stream.until((e) => e.event === 'run.succeeded', 10_000)
      expect(JSON.stringify(events)).not.toContain(NUMBER)
      const deliveries = await t.system.store.all<{ payload: string }>('SELECT payload FROM hook_deliveries')
      expect(deliveries.length).toBeGreaterThan(0)
      expect(JSON.stringify(deliveries)).not.toContain(NUMBER)
      if (kind === 'sqlite') {
        const dir = t.system.config.dataDir
        for (const file of readdirSync(dir).filter((f) => f.startsWith('automaton.db'))) {
          expect({ file, has: readFileSync(join(dir, file)).includes(Buffer.from(NUMBER)) }).toEqual({
            file,
            has: false,
          })
        }
      } else {
        const dump = await t.system.store.all<{ t: string }>(
          "SELECT string_agg(row_to_json(x)::text, '') AS t FROM (SELECT * FROM events) x",
        )
        expect(dump[0].t ?? '').not.toContain(NUMBER)
      }
      // Nor in anything logged, which did log the run.
      expect(logger.lines.some((line) => line.includes(runId))).toBe(true)
      expect(logger.lines.filter((line) => line.includes(NUMBER))).toEqual([])
      // The redemption is audited.
      const audit = (await t.call('GET', `/v1/agent-cards/${cardId}/redemptions`)).body.data
      expect(audit).toEqual([
        expect.objectContaining({
          runId,
          redeemedRunId: runId,
          merchant: new URL(merchant.url).host,
          redeemedAt: expect.any(String),
        }),
      ])
    }, 40_000)

    it('never redeems an expired handle', async () => {
      const allowance = {
        agentTypes: ['shopper'],
        merchants: [new URL(merchant.url).host],
        maxUses: 5,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      }
      expect((await asPerson('POST', `/v1/agent-cards/${cardId}/allowances`, allowance)).status).toBe(200)
      let held!: () => void
      const hold = new Promise<void>((resolve) => (held = resolve))
      merchant.respond(async (q) => {
        if (q.path === '/wait') await hold
        return Response.json({ ok: true })
      })
      model.queue(toolTurn('http-request', { url: `${merchant.url}/wait` }))
      const runId = (await t.call('POST', '/v1/agent-runs', { body: { agentType: 'shopper', prompt: 'Buy later' } }))
        .body.data.runId
      await waitForRun(t, runId, (r) => r.nodes.tools_1?.status === 'running')
      const handle = (await disclose(cardId, discloser, runId)).body.data.handle
      // The run's own worker session (its type declares card:disclose) needs no X-Run-ID, and
      // cannot ask for another run.
      const sealed = await t.system.store.get<{ sealed_key: string }>(
        'SELECT sealed_key FROM agent_runs WHERE run_id = $1',
        [runId],
      )
      const session = await t.system.secretBox.open(sealed!.sealed_key)
      expect((await disclose(cardId, session)).status).toBe(200)
      const otherRun = (await t.call('POST', '/v1/agent-runs', { body: { agentType: 'shopper', prompt: 'x' } })).body
        .data.runId
      expect((await disclose(cardId, session, otherRun)).status).toBe(403)
      await t.call('POST', `/v1/agent-runs/${otherRun}/cancel`)
      model.queue(
        toolTurn('http-request', { url: `${merchant.url}/late`, method: 'POST', body: `{{$card.${handle}.number}}` }),
        textTurn('Too late.'),
      )
      // Past the handle's time to live (2 s) before the run asks to redeem it.
      clock.skip(2_100)
      held()
      const run = await waitForRun(t, runId, undefined, 20_000)
      expect((run.nodes.tools_2.result.transcript as Array<{ content: string }>).at(-1)!.content).toContain('expired')
      expect(merchant.requests.some((q) => q.path === '/late')).toBe(false)
    }, 30_000)

    it('refuses {{$card…}} outside an http-request node when a workflow is saved', async () => {
      const r = await t.call('POST', '/v1/workflows', {
        body: {
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['say'] },
              say: { type: 'log', payload: { message: '{{$card.cdh_x.number}}' } },
            },
          },
        },
      })
      expect(r.status).toBe(400)
      expect(r.body.details[0]).toEqual({
        path: '/definition/nodes/say/payload/message',
        message: '{{$card…}} is only available in an http-request node',
      })
    })
  })
}

/** The stored card's number as merchants and URLs write it back; none may be kept. */
const NUMBER_FORMS = [
  NUMBER,
  '4242 4242 4242 4242',
  '4242-4242-4242-4242',
  '4242.4242.4242.4242',
  '4242%204242%204242%204242',
]
/** Long numbers that are not the card: a Luhn-valid one, a millisecond timestamp, a snowflake id. */
const OTHER_CARD = '5555555555554444'
const TIMESTAMP = 1767225600123
const SNOWFLAKE = '1288834974657123456'

for (const kind of storeKinds()) {
  describe(`a stored card's number and CVC masked wherever they come back (${kind})`, () => {
    let t: TestSystem
    let model: ScriptedOpenAi
    let merchant: Receiver
    let hooks: Receiver
    let discloser: string
    let cardId: string
    const logger = recordingLogger()

    beforeAll(async () => {
      model = startScriptedOpenAi()
      merchant = startReceiver()
      hooks = startReceiver()
      t = await openTestSystem(
        kind,
        {
          AUTOMATON_AI_BASE_URL: model.url,
          AUTOMATON_AI_MODEL: 'scripted',
          AUTOMATON_AI_DEFAULT_CREDITS: '100',
          AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
          AUTOMATON_HOOK_ALLOW_HTTP: 'true',
        },
        { plugins: [shopper], logger },
      )
      const person = await addMember(t, `card-echo-${kind}@example.com`, 'owner')
      const account = await t.call('POST', '/v1/service-accounts', {
        body: { name: 'payer', permissions: ['card:disclose'] },
      })
      discloser = (
        await t.call('POST', '/v1/api-keys', { body: { name: 'payer', serviceAccountId: account.body.data.id } })
      ).body.data.key
      await t.call('POST', '/v1/execution-webhooks', { body: { name: 'all', url: `${hooks.url}/events` } })
      cardId = (await t.call('POST', '/v1/agent-cards', { body: CARD })).body.data.id
      const allowance = {
        agentTypes: ['shopper'],
        merchants: [new URL(merchant.url).host],
        maxUses: 1,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      }
      expect(
        (
          await t.call('POST', `/v1/agent-cards/${cardId}/allowances`, {
            key: person.token,
            body: allowance,
            headers: { 'x-org-id': t.orgId },
          })
        ).status,
      ).toBe(200)
    })
    afterAll(async () => {
      await t?.close()
      await model?.stop()
      await merchant?.stop()
      await hooks?.stop()
    })

    it("masks a merchant's echo in headers, a Location URL and the body, in any spacing, and leaves other long numbers alone", async () => {
      let released!: () => void
      const hold = new Promise<void>((resolve) => (released = resolve))
      merchant.respond(async (q) => {
        if (q.path === '/browse') {
          await hold
          return Response.json({ ok: true })
        }
        // A careless merchant echoes the card every way it can.
        return Response.json(
          {
            spaced: '4242 4242 4242 4242',
            dashed: '4242-4242-4242-4242',
            dotted: '4242.4242.4242.4242',
            echoed: q.body,
            otherCard: OTHER_CARD,
            at: TIMESTAMP,
            orderId: SNOWFLAKE,
            quantity: 737,
          },
          {
            headers: {
              'x-echo-card': NUMBER,
              'x-echo-cvc': '737',
              location: `http://${new URL(merchant.url).host}/receipt?card=4242%204242%204242%204242&n=${NUMBER}&order=${SNOWFLAKE}`,
            },
          },
        )
      })
      model.queue(toolTurn('http-request', { url: `${merchant.url}/browse` }))
      const runId = (await t.call('POST', '/v1/agent-runs', { body: { agentType: 'shopper', prompt: 'Buy the book' } }))
        .body.data.runId
      const stream = readSse(
        await t.system.app.handle(
          new Request(`http://localhost/v1/executions/${runId}/stream`, {
            headers: { authorization: `Bearer ${t.key}` },
          }),
        ),
      )
      await waitForRun(t, runId, (r) => r.nodes.tools_1?.status === 'running')
      const handle = (
        await t.call('POST', `/v1/agent-cards/${cardId}/disclosure`, { key: discloser, headers: { 'x-run-id': runId } })
      ).body.data.handle as string
      model.queue(
        toolTurn('http-request', {
          url: `${merchant.url}/pay`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: `{"card":"{{$card.${handle}.number}}","cvc":"{{$card.${handle}.cvc}}","exp":"{{$card.${handle}.expMonth}}/{{$card.${handle}.expYear}}"}`,
        }),
        textTurn('Paid.'),
      )
      released()
      const run = await waitForRun(t, runId, undefined, 20_000)
      expect(run.status).toBe('success')
      expect(JSON.parse(merchant.requests.find((q) => q.path === '/pay')!.body)).toEqual({
        card: NUMBER,
        cvc: '737',
        exp: '12/2031',
      })

      // The node's result: what the tool answered, as the model and the journal saw it.
      const answer = JSON.parse((run.nodes.tools_2.result.transcript as Array<{ content: string }>).at(-1)!.content)
      expect(answer.headers['x-echo-card']).toBe('[card]')
      expect(answer.headers['x-echo-cvc']).toBe('[cvc]')
      expect(answer.headers.location).toBe(
        `http://${new URL(merchant.url).host}/receipt?card=[card]&n=[card]&order=${SNOWFLAKE}`,
      )
      expect(answer.body).toEqual({
        spaced: '[card]',
        dashed: '[card]',
        dotted: '[card]',
        echoed: '{"card":"[card]","cvc":"[cvc]","exp":"12/2031"}',
        otherCard: OTHER_CARD,
        at: TIMESTAMP,
        orderId: SNOWFLAKE,
        quantity: 737,
      })

      const kept = {
        run: JSON.stringify(run),
        stream: JSON.stringify(await stream.until((e) => e.event === 'run.succeeded', 10_000)),
        journal: JSON.stringify(
          await t.system.store.all('SELECT type, node_id, data FROM events WHERE run_id = $1', [runId]),
        ),
        hooks: JSON.stringify(await t.system.store.all('SELECT payload FROM hook_deliveries')),
        logs: logger.lines.join('\n'),
        model: JSON.stringify(model.requests),
      }
      for (const [where, text] of Object.entries(kept)) {
        expect({
          where,
          forms: NUMBER_FORMS.filter((form) => text.includes(form)),
          cvc: /cvc[^A-Za-z0-9]{1,8}737/i.test(text),
        }).toEqual({ where, forms: [], cvc: false })
      }
      for (const where of ['run', 'stream', 'journal'] as const) {
        expect({
          where,
          intact: [OTHER_CARD, String(TIMESTAMP), SNOWFLAKE].filter((n) => kept[where].includes(n)).length,
        }).toEqual({ where, intact: 3 })
      }
      if (kind === 'sqlite') {
        const dir = t.system.config.dataDir
        for (const file of readdirSync(dir).filter((f) => f.startsWith('automaton.db'))) {
          const bytes = readFileSync(join(dir, file))
          expect({ file, forms: NUMBER_FORMS.filter((form) => bytes.includes(Buffer.from(form))) }).toEqual({
            file,
            forms: [],
          })
        }
      }
    }, 40_000)

    it('masks the card where no handle was redeemed: a webhook that carries it, and a node that logs it', async () => {
      const w = await createLive(t, {
        definition: linear(
          {
            say: {
              type: 'log',
              payload: {
                message: 'paid with {{$trigger.body.card}}, cvv {{$trigger.body.cvv}}, order {{$trigger.body.orderId}}',
              },
            },
          },
          ['say'],
        ),
      })
      const sent = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
        key: null,
        headers: { 'x-card-number': '4242-4242-4242-4242' },
        body: {
          card: '4242 4242 4242 4242',
          cvv: '737',
          url: `https://shop.example/r?n=4242%204242%204242%204242`,
          orderId: SNOWFLAKE,
          otherCard: OTHER_CARD,
          at: TIMESTAMP,
          quantity: 737,
        },
      })
      const runId = sent.body.data.runIds[0]
      const run = await waitForRun(t, runId)
      expect(run.status).toBe('success')
      expect(run.nodes.say.result.message).toBe(`paid with [card], cvv [cvc], order ${SNOWFLAKE}`)
      const trigger = run.nodes.root.result
      expect(trigger.headers['x-card-number']).toBe('[card]')
      expect(trigger.body).toEqual({
        card: '[card]',
        cvv: '[cvc]',
        url: 'https://shop.example/r?n=[card]',
        orderId: SNOWFLAKE,
        otherCard: OTHER_CARD,
        at: TIMESTAMP,
        quantity: 737,
      })
      const journal = JSON.stringify(
        await t.system.store.all('SELECT type, node_id, data FROM events WHERE run_id = $1', [runId]),
      )
      expect(
        NUMBER_FORMS.filter((form) => journal.includes(form) || logger.lines.some((line) => line.includes(form))),
      ).toEqual([])
    })
  })
}
