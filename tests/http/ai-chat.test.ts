/**
 * The AI capability end to end against a scripted OpenAI-compatible server: the builder chat
 * (a refused proposal repaired, the draft applied, a linked test run), its history paged by
 * keyset, credits (reserved, settled, refunded, never overspent), the ai-prompt node and the
 * cu_exhausted pause, and the contract chat (plan, approval, a compile error repaired, solc).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { aiCredits } from '../../core/store/ai-credits.ts'
import { chatMessages } from '../../core/store/chat-messages.ts'
import {
  startScriptedOpenAi,
  type ScriptedOpenAi,
  scriptedModelEnv,
  textDelta,
  textTurn,
  toolTurn,
  usageOnly,
  finish,
} from '../helpers/openai-server.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

interface Event {
  event: string
  data: any
}

/** The events of a finished server-sent event body. */
function eventsOf(text: string): Event[] {
  return text
    .split('\n\n')
    .filter((f) => f.includes('event:'))
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)![1]
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n')
      return { event, data: JSON.parse(data) }
    })
}

/** A turn that calls one tool with its arguments split in fragments, then reports usage. */
const GOOD = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['say'] },
    say: { type: 'log', payload: { message: '{{$trigger.body.name}}' } },
  },
}
const BAD = {
  triggerNodeIds: ['root'],
  nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'no-such-action', payload: {} } },
}

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
    uint256 public count;
    event Bumped(uint256 count);
    function bump() external { count += 1; emit Bumped(count); }
}`

for (const kind of storeKinds()) {
  describe(`AI chat (${kind})`, () => {
    let t: TestSystem
    let model: ScriptedOpenAi
    beforeAll(async () => {
      model = startScriptedOpenAi()
      t = await openTestSystem(kind, scriptedModelEnv(model, 5))
    })
    afterAll(async () => {
      await t.close()
      await model.stop()
    })

    const balance = () => aiCredits.balance(t.system.store, t.orgId)
    const grant = (amount: number) =>
      t.system.store.write((tx) =>
        aiCredits.grant(tx, { id: `job_${crypto.randomUUID()}`, organizationId: t.orgId, amount, at: Date.now() }),
      )
    const chat = async (body: Record<string, unknown>, key?: string) => {
      const r = await t.call('POST', '/v1/ai/workflow/chat', { body, key })
      return { ...r, events: r.status === 200 ? eventsOf(r.body as string) : [] }
    }

    it('starts new organizations with the default credits, and refuses a turn without credits (402) before any model call', async () => {
      expect(await balance()).toBe(5)
      const other = await t.newOrganization(`ai-poor-${kind}`)
      await t.system.store.write((tx) =>
        aiCredits.grant(tx, {
          id: `job_${crypto.randomUUID()}`,
          organizationId: other.orgId,
          amount: -5,
          at: Date.now(),
        }),
      )
      expect((await t.call('GET', '/v1/ai/workflow/chat/preflight', { key: other.key })).body).toEqual({
        allowed: false,
      })
      const before = model.requests.length
      const refused = await chat({ message: 'build me something' }, other.key)
      expect(refused.status).toBe(402)
      expect(refused.body.message).toContain('credits')
      expect(model.requests.length).toBe(before)
    })

    it('builds a workflow by chat: a refused proposal goes back with its problems, the repaired one becomes the draft', async () => {
      await grant(100)
      const before = await balance()
      model.queue(
        toolTurn(
          'propose_workflow',
          { name: 'Greeter', description: 'Logs a name', definition: BAD },
          { text: 'Let me try. ' },
        ),
        toolTurn('propose_workflow', { name: 'Greeter', description: 'Logs a name', definition: GOOD }),
        textTurn('Built a greeter that logs the name it receives.'),
      )
      const turn = await chat({ message: 'Log the name that comes in', sessionId: `create-${kind}` })
      expect(turn.status).toBe(200)
      expect(turn.headers.get('content-type')).toContain('text/event-stream')
      const names = turn.events.map((e) => e.event)
      expect(names.filter((n) => n === 'workflow.proposed')).toHaveLength(1)
      expect(names.at(-1)).toBe('done')
      expect(
        turn.events
          .filter((e) => e.event === 'message.delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe('Let me try. Built a greeter that logs the name it receives.')
      const proposed = turn.events.find((e) => e.event === 'workflow.proposed')!.data
      expect(proposed.definition).toEqual(GOOD)
      const done = turn.events.at(-1)!.data
      expect(done.workflowId).toBe(proposed.workflowId)

      // The model saw the checker's problems, and the tools and usage request were sent right.
      const second = model.requests.at(-2)!
      const toolAnswer = (second.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool')!
      expect(JSON.parse(toolAnswer.content)).toMatchObject({
        accepted: false,
        problems: [expect.objectContaining({ path: expect.stringContaining('/nodes/say') })],
      })
      expect((second.tools as Array<{ function: { name: string } }>).map((x) => x.function.name)).toEqual([
        'propose_workflow',
        'test_run',
      ])

      const w = (await t.call('GET', `/v1/workflows/${proposed.workflowId}`)).body.data
      expect(w).toMatchObject({ aiName: 'Greeter', aiDescription: 'Logs a name', name: 'Greeter', status: 'draft' })
      // Saved, each node records the version of its type.
      expect(w.definition).toMatchObject(GOOD)
      // Three model calls of 2,000, 2,000 and 1,000 tokens: 2 + 2 + 1 credits.
      expect(before - (await balance())).toBe(5)

      const history = (await t.call('GET', `/v1/ai/workflow/chat/history?conversationId=${done.conversationId}`)).body
        .data
      expect(history.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant'])
      expect(history[0]).toMatchObject({
        content: 'Log the name that comes in',
        senderUserId: '',
        sessionId: `create-${kind}`,
        tokensUsed: 0,
        organizationId: t.orgId,
      })
      expect(history[1]).toMatchObject({
        id: done.messageId,
        role: 'assistant',
        tokensUsed: 5000,
        agentVersion: 'builder-1',
        workflowId: proposed.workflowId,
        linkedRunId: '',
        linkedRunStatus: '',
      })
      expect(history[0].turnId).toBe(history[1].turnId)
      const payload = JSON.parse(new TextDecoder().decode(new Uint8Array(history[1].structuredPayload)))
      expect(payload.definition).toEqual(GOOD)
      // By session and by workflow too.
      expect((await t.call('GET', `/v1/ai/workflow/chat/history?sessionId=create-${kind}`)).body.data).toHaveLength(2)
      expect(
        (await t.call('GET', `/v1/ai/workflow/chat/history?workflowId=${proposed.workflowId}`)).body.data.map(
          (m: { id: string }) => m.id,
        ),
      ).toContain(done.messageId)

      // The next turn edits the same workflow: a name the person set stays, a test run is linked and followed.
      await t.call('PUT', `/v1/workflows/${proposed.workflowId}`, { body: { name: 'Mine', nameManuallySet: true } })
      model.queue(
        toolTurn('propose_workflow', { name: 'Greeter 2', definition: GOOD }),
        toolTurn('test_run', { payload: { name: 'Ada' } }),
        textTurn('Ran it.'),
      )
      const edit = await chat({ message: 'try it with Ada', conversationId: done.conversationId })
      expect(edit.events.map((e) => e.event)).toEqual(
        expect.arrayContaining(['workflow.proposed', 'run.linked', 'done']),
      )
      const runId = edit.events.find((e) => e.event === 'run.linked')!.data.runId
      expect((await t.call('GET', `/v1/workflows/${proposed.workflowId}`)).body.data).toMatchObject({
        name: 'Mine',
        aiName: 'Greeter 2',
      })
      const run = await waitForRun(t, runId)
      expect(run.status).toBe('success')
      const last = (
        await t.call('GET', `/v1/ai/workflow/chat/history?conversationId=${done.conversationId}`)
      ).body.data.at(-1)
      expect(last).toMatchObject({ linkedRunId: runId, linkedRunStatus: 'success' })
      expect(last.linkedRunStartedAt).not.toBe('')
      expect(last.linkedRunFinishedAt).not.toBe('')
    })

    it('refunds a turn that failed before any output, and retries a 429 that names Retry-After', async () => {
      await grant(50)
      const before = await balance()
      model.queue(
        { steps: [{ disconnect: true }] },
        { steps: [{ disconnect: true }] },
        { steps: [{ disconnect: true }] },
      )
      const failed = await chat({ message: 'anything' })
      expect(failed.events.map((e) => e.event)).toEqual(['error', 'done'])
      expect(await balance()).toBe(before)
      const entries = await aiCredits.entries(t.system.store, t.orgId, 5)
      expect(entries[0].kind).toBe('refund')

      model.queue(
        { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down', type: 'rate_limit' } } },
        textTurn('Hello after waiting.'),
      )
      const retried = await chat({ message: 'hello' })
      expect(
        retried.events
          .filter((e) => e.event === 'message.delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe('Hello after waiting.')
      expect(before - (await balance())).toBe(1)
    })

    it('never spends more than the balance when turns run at once', async () => {
      const other = await t.newOrganization(`ai-race-${kind}`)
      // 5 default credits; each turn reserves what it may cost at most (about 3 credits here).
      const before = model.requests.length
      for (let i = 0; i < 6; i++) model.queue(textTurn('ok', [100, 100]))
      const turns = await Promise.all(Array.from({ length: 6 }, () => chat({ message: 'x'.repeat(400) }, other.key)))
      const answered = turns.filter((r) => r.events.some((e) => e.event === 'message.delta')).length
      const refused = turns.filter(
        (r) => r.status === 402 || r.events.some((e) => e.event === 'error' && /credits/.test(e.data.message)),
      ).length
      expect(answered + refused).toBe(6)
      expect(answered).toBeGreaterThanOrEqual(1)
      expect(answered).toBeLessThan(6)
      expect(model.requests.length - before).toBe(answered)
      // Each answered turn was charged its 200 tokens (1 credit), the refused ones nothing, and the
      // ledger adds up to the balance: nothing was spent beyond what the balance held.
      const balance = await aiCredits.balance(t.system.store, other.orgId)
      expect(balance).toBe(5 - answered)
      const entries = await aiCredits.entries(t.system.store, other.orgId, 1000)
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(balance)
      expect(entries.filter((e) => e.kind === 'reserve')).toHaveLength(answered)
      // The scripts no turn took are dropped for the next test.
      model.clear()
    })

    it('pages history by keyset without skipping or repeating messages of equal timestamps, and refuses bad queries', async () => {
      const conversation = `conv_page_${kind}`
      const at = Date.parse('2026-01-01T00:00:00Z')
      await t.system.store.write(async (tx) => {
        for (let i = 0; i < 25; i++) {
          await chatMessages.insert(tx, {
            id: `msg_${String(i).padStart(3, '0')}`,
            organization_id: t.orgId,
            chat: 'builder',
            conversation_id: conversation,
            workflow_id: null,
            session_id: null,
            turn_id: `job_${Math.floor(i / 2)}`,
            role: i % 2 ? 'assistant' : 'user',
            content: `m${i}`,
            agent_version: 'builder-1',
            sender_user_id: null,
            image_urls: '[]',
            structured_payload: null,
            tokens_used: 0,
            linked_run_id: null,
            created_at: at + (i < 12 ? 0 : 1000),
          })
        }
      })
      const seen: string[] = []
      let cursor = ''
      for (let page = 0; page < 5; page++) {
        const r = await t.call('GET', `/v1/ai/workflow/chat/history?conversationId=${conversation}&limit=10${cursor}`)
        expect(r.status).toBe(200)
        const items = r.body.data as Array<{ id: string; createdAt: string }>
        if (items.length === 0) break
        // Each page oldest first.
        expect(items.map((m) => m.id)).toEqual([...items.map((m) => m.id)].sort())
        seen.unshift(...items.map((m) => m.id))
        cursor = `&before=${encodeURIComponent(items[0].createdAt)}&beforeId=${items[0].id}`
      }
      expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `msg_${String(i).padStart(3, '0')}`))
      for (const bad of [
        '',
        `conversationId=${conversation}&limit=101`,
        `conversationId=${conversation}&limit=0`,
        `conversationId=${conversation}&before=yesterday`,
        `conversationId=${conversation}&beforeId=msg_001`,
      ]) {
        const r = await t.call('GET', `/v1/ai/workflow/chat/history?${bad}`)
        expect(r.status).toBe(400)
        expect(r.body.code).toBe(400)
      }
      // Another organization sees none of it.
      const other = await t.newOrganization(`ai-hist-${kind}`)
      expect(
        (await t.call('GET', `/v1/ai/workflow/chat/history?conversationId=${conversation}`, { key: other.key })).body
          .data,
      ).toEqual([])
    })

    it('answers with the ai-prompt node, parses JSON against a schema, and pauses the workflow when credits run out', async () => {
      await grant(20)
      const w = await createLive(t, {
        name: 'ask',
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['ask'] },
            ask: {
              type: 'ai-prompt',
              payload: {
                prompt: 'Sentiment of: {{$trigger.body.text}}',
                schema: { type: 'object', properties: { mood: { type: 'string' } } },
              },
            },
          },
        },
      })
      model.queue({
        steps: [textDelta('```json\n{"mood":'), textDelta(' "happy"}\n```'), finish('stop'), usageOnly(300, 20)],
      })
      const ok = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { text: 'what a day' } } })
      const run = await waitForRun(t, ok.body.data.runId)
      expect(run.status).toBe('success')
      expect(run.nodes.ask.result).toEqual({
        text: '```json\n{"mood": "happy"}\n```',
        json: { mood: 'happy' },
        tokensUsed: 320,
      })
      const asked = model.requests.at(-1)! as { messages: Array<{ role: string; content: string }> }
      expect(asked.messages.at(-1)!.content).toBe('Sentiment of: what a day')
      expect(asked.messages[0].content).toContain('"mood"')

      // No credits left: the node fails with cu_exhausted and the live version pauses.
      await grant(-(await balance()))
      const before = model.requests.length
      const broke = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body: { text: 'again' } })
      const failed = await waitForRun(t, broke.body.data.runIds[0])
      expect(failed.status).toBe('failure')
      expect(failed.error).toMatchObject({ code: 'cu_exhausted', nodeId: 'ask' })
      expect(failed.nodes.ask.error).toContain('credits')
      expect(model.requests.length).toBe(before)
      const live = (await t.call('GET', `/v1/workflows/${w.id}/live`)).body.data
      expect(live).toMatchObject({ status: 'paused', pausedReason: 'cu_exhausted' })
      // A grant and a resume bring it back.
      await grant(10)
      expect((await t.call('POST', `/v1/workflows/${w.id}/resume`)).status).toBe(200)
      model.queue({ steps: [textDelta('{"mood":"calm"}'), finish('stop'), usageOnly(100, 10)] })
      const again = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body: { text: 'fine' } })
      expect((await waitForRun(t, again.body.data.runIds[0])).nodes.ask.result.json).toEqual({ mood: 'calm' })
    })

    it("writes a contract by chat: a plan, its approval, a compile error repaired, and solc's ABI and bytecode", async () => {
      await grant(100)
      expect((await t.call('POST', '/v1/contract/chat/stream', { body: { message: 'x'.repeat(51_201) } })).status).toBe(
        400,
      )
      expect(
        (await t.call('POST', '/v1/contract/chat/stream', { body: { message: 'hi', contractId: 'ctr_nope' } })).status,
      ).toBe(400)
      expect(
        (await t.call('POST', '/v1/contract/chat/stream', { body: { message: 'hi', action: 'approve_plan' } })).status,
      ).toBe(400)

      model.queue(
        toolTurn(
          'propose_plan',
          { name: 'Counter', steps: ['Store a count', 'bump() adds one and emits Bumped'] },
          { text: 'Here is a plan.' },
        ),
      )
      const first = await t.call('POST', '/v1/contract/chat/stream', { body: { message: 'A counter anyone can bump' } })
      expect(first.status).toBe(200)
      const firstEvents = eventsOf(first.body)
      expect(firstEvents[0].event).toBe('contract')
      const contractId = firstEvents[0].data.contractId
      expect(contractId).toMatch(/^ctr_/)
      expect(firstEvents.find((e) => e.event === 'plan')!.data).toEqual({
        name: 'Counter',
        steps: ['Store a count', 'bump() adds one and emits Bumped'],
      })
      expect(firstEvents.at(-1)).toMatchObject({ event: 'done', data: { contractId, status: 'plan_pending' } })

      model.queue(
        toolTurn('write_contract', { source: COUNTER.replace('count += 1;', 'count += 1') }, { id: 'call_w1' }),
        toolTurn('write_contract', { source: COUNTER }, { id: 'call_w2' }),
      )
      const approved = await t.call('POST', '/v1/contract/chat/stream', {
        body: { message: '', contractId, action: 'approve_plan' },
      })
      const events = eventsOf(approved.body)
      expect(events.map((e) => e.event)).not.toContain('compile_error')
      const code = events
        .filter((e) => e.event === 'code.delta')
        .map((e) => e.data.text)
        .join('')
      expect(code.endsWith(COUNTER)).toBe(true)
      const compiled = events.find((e) => e.event === 'compiled')!.data
      expect(compiled.name).toBe('Counter')
      expect(compiled.bytecode).toMatch(/^0x60[0-9a-f]+$/)
      expect(
        compiled.abi
          .map((x: { name?: string }) => x.name)
          .filter(Boolean)
          .sort(),
      ).toEqual(['Bumped', 'bump', 'count'])
      // The repair turn carried the compiler's error back.
      const repair = model.requests.at(-1)! as { messages: Array<{ role: string; content: string }> }
      expect(repair.messages.find((m) => m.role === 'tool')!.content).toContain('ParserError')

      const record = (await t.call('GET', `/v1/contracts/${contractId}`)).body.data
      expect(record).toMatchObject({
        id: contractId,
        name: 'Counter',
        status: 'compiled',
        source: COUNTER,
        bytecode: compiled.bytecode,
        deployments: [],
      })
      expect(record.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
      expect((await t.call('GET', '/v1/contracts')).body.data.items.map((c: { id: string }) => c.id)).toContain(
        contractId,
      )
      const other = await t.newOrganization(`ai-contract-${kind}`)
      expect((await t.call('GET', `/v1/contracts/${contractId}`, { key: other.key })).status).toBe(404)
    }, 60_000)
  })
}

describe('AI without a provider', () => {
  let t: TestSystem
  beforeAll(async () => {
    t = await openTestSystem('sqlite')
  })
  afterAll(() => t.close())

  it('answers 503 naming the settings, and an ai-prompt node fails without retrying', async () => {
    const r = await t.call('POST', '/v1/ai/workflow/chat', { body: { message: 'hello' } })
    expect(r.status).toBe(503)
    expect(r.body.message).toContain('AUTOMATON_AI_BASE_URL')
    expect((await t.call('POST', '/v1/contract/chat/stream', { body: { message: 'hello' } })).status).toBe(503)
    expect((await t.call('GET', '/v1/ai/workflow/chat/preflight')).body).toEqual({ allowed: false })
    const w = await createLive(t, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: { root: { type: 'manual', children: ['ask'] }, ask: { type: 'ai-prompt', payload: { prompt: 'hi' } } },
      },
    })
    const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })
    const run = await waitForRun(t, started.body.data.runId)
    expect(run.status).toBe('failure')
    expect(run.error).toMatchObject({ code: 'ai_unavailable', nodeId: 'ask' })
    expect(run.nodes.ask.error).toContain('AUTOMATON_AI_BASE_URL')
    expect(run.nodes.ask.attempts ?? 1).toBe(1)
  })
})
