/**
 * Agent runs against the scripted model server: the discovery list, a disabled or unknown type,
 * a researcher run whose model asks for an HTTP request (through the outbound guard, to a local
 * receiver) and then answers — each step a journaled node, streamed, paid from credits — a
 * workflow builder whose worker session can do what its type declares and nothing more, and
 * stops working when the run ends, a conversation carried into the next run, and cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { aiCredits } from '../../core/store/ai-credits.ts'
import {
  finish,
  type ScriptedOpenAi,
  startScriptedOpenAi,
  textDelta,
  toolFragment,
  usageOnly,
} from '../helpers/openai-server.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { readSse } from '../helpers/sse.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { waitForRun } from '../helpers/workflows.ts'

const toolTurn = (calls: Array<{ name: string; args: unknown }>) => ({
  steps: [
    ...calls.map((c, i) =>
      toolFragment(i, { id: `call_${i}_${c.name}`, name: c.name, arguments: JSON.stringify(c.args) }),
    ),
    finish('tool_calls'),
    usageOnly(1500, 100),
  ],
})
const textTurn = (text: string) => ({ steps: [textDelta(text), finish('stop'), usageOnly(1800, 200)] })

for (const kind of storeKinds()) {
  describe(`agent runs (${kind})`, () => {
    let t: TestSystem
    let model: ScriptedOpenAi
    let receiver: Receiver

    beforeAll(async () => {
      model = startScriptedOpenAi()
      receiver = startReceiver()
      t = await openTestSystem(kind, {
        AUTOMATON_AI_BASE_URL: model.url,
        AUTOMATON_AI_MODEL: 'scripted',
        AUTOMATON_AI_DEFAULT_CREDITS: '100',
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        AUTOMATON_AGENTS_DISABLED: 'disabled-one',
      })
    })
    afterAll(async () => {
      await t?.close()
      await model?.stop()
      await receiver?.stop()
    })

    const start = (body: Record<string, unknown>, key?: string) => t.call('POST', '/v1/agent-runs', { body, key })

    it('lists the enabled agent types, refuses an unknown one with 400', async () => {
      const r = await t.call('GET', '/v1/agent-runs/agents')
      expect(r.status).toBe(200)
      const types = r.body.data.map((a: { agentType: string }) => a.agentType)
      expect(types).toEqual(expect.arrayContaining(['researcher', 'workflow-builder']))
      expect(
        structuredClone(r.body.data.find((a: { agentType: string }) => a.agentType === 'researcher')),
      ).toMatchObject({
        name: 'Researcher',
        tools: ['http-request'],
        permissions: ['run:read'],
        inputSchema: { type: 'object' },
      })
      const unknown = await start({ agentType: 'nobody', prompt: 'hi' })
      expect(unknown.status).toBe(400)
      expect(unknown.body.details[0].path).toBe('/agentType')
      expect((await start({ agentType: 'researcher' })).status).toBe(400)
      const viewer = (await t.call('POST', '/v1/api-keys', { body: { name: 'viewer', scope: 'read' } })).body.data.key
      expect((await start({ agentType: 'researcher', prompt: 'hi' }, viewer)).status).toBe(403)
    })

    it('runs a researcher: a model step asks for an HTTP request, the tools step makes it, the next step answers; journaled, streamed and paid', async () => {
      receiver.respond(() => Response.json({ headline: 'Bun 2 released' }))
      const before = await aiCredits.balance(t.system.store, t.orgId)
      model.queue(
        toolTurn([{ name: 'http-request', args: { url: `${receiver.url}/news`, method: 'GET' } }]),
        textTurn('The news: Bun 2 released (from /news).'),
      )
      const parentSpan = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
      const r = await start({
        agentType: 'researcher',
        prompt: 'What is the news?',
        payload: { urls: [`${receiver.url}/news`] },
        parentSpan,
        parentProject: 'proj',
      })
      expect(r.status).toBe(200)
      expect(r.body.data).toEqual({
        agentType: 'researcher',
        conversationId: expect.stringMatching(/^conv_/),
        runId: expect.stringMatching(/^run_/),
      })
      const { runId, conversationId } = r.body.data
      const stream = readSse(
        await t.system.app.handle(
          new Request(`http://localhost/v1/runs/${runId}/stream`, { headers: { authorization: `Bearer ${t.key}` } }),
        ),
      )
      const run = await waitForRun(t, runId)
      expect(run.status).toBe('success')
      expect(run.nodes.model_1.result.toolCalls[0].name).toBe('http-request')
      expect(run.nodes.tools_1.result.calls).toEqual([{ name: 'http-request', ok: true }])
      expect(JSON.stringify(run.nodes.tools_1.result.transcript)).toContain('Bun 2 released')
      expect(run.nodes.model_2.result.text).toBe('The news: Bun 2 released (from /news).')
      expect(run.nodes.model_2.branch ?? 'done').toBe('done')
      expect(receiver.requests.filter((q) => q.path === '/news')).toHaveLength(1)
      // The first step saw the prompt with its payload; the second, the tool's answer.
      expect(JSON.stringify(model.requests.at(-2))).toContain('What is the news?')
      expect(JSON.stringify(model.requests.at(-2))).toContain('/news')
      expect(JSON.stringify(model.requests.at(-1))).toContain('Bun 2 released')
      // Streamed like any run: the model and tools steps, then the end.
      const events = await stream.until((e) => e.event === 'run.succeeded', 10_000)
      expect(events.filter((e) => e.event === 'node.succeeded').map((e) => e.data.nodeId)).toEqual([
        'root',
        'model_1',
        'tools_1',
        'model_2',
      ])
      // 1,600 + 2,000 tokens: 2 + 2 credits.
      expect(await aiCredits.balance(t.system.store, t.orgId)).toBe(before - 4)
      const stored = await t.system.store.get<{ parent_span: string; parent_project: string; conversation_id: string }>(
        'SELECT parent_span, parent_project, conversation_id FROM agent_runs WHERE run_id = $1',
        [runId],
      )
      expect(stored).toEqual({ parent_span: parentSpan, parent_project: 'proj', conversation_id: conversationId })
      // A W3C parentSpan puts the run in the caller's trace.
      const traced = await t.system.store.get<{ traceparent: string | null }>(
        'SELECT traceparent FROM runs WHERE id = $1',
        [runId],
      )
      expect(traced?.traceparent ?? '').toContain('4bf92f3577b34da6a3ce929d0e0e4736')

      // The same conversation again: the next run starts from where it ended.
      model.queue(textTurn('Still Bun 2.'))
      const next = await start({ agentType: 'researcher', prompt: 'And now?', conversationId })
      expect(next.body.data.conversationId).toBe(conversationId)
      await waitForRun(t, next.body.data.runId)
      const sent = JSON.stringify(model.requests.at(-1))
      expect(sent).toContain('The news: Bun 2 released')
      expect(sent).toContain('And now?')
      const other = await t.newOrganization(`agents-other-${kind}`)
      expect((await start({ agentType: 'researcher', prompt: 'x', conversationId }, other.key)).status).toBe(404)
    })

    it('gives a workflow builder a worker session with its permissions only, which ends with the run', async () => {
      const definition = {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['say'] },
          say: { type: 'log', payload: { message: 'built by an agent' } },
        },
      }
      model.queue(
        toolTurn([
          {
            name: 'automaton-api',
            args: { method: 'POST', path: '/v1/workflows', body: { name: 'Made by an agent', definition } },
          },
          {
            name: 'automaton-api',
            args: { method: 'POST', path: '/v1/connectors', body: { name: 'x', type: 'chatapp', data: {} } },
          },
          { name: 'http-request', args: { url: `${receiver.url}/not-mine` } },
        ]),
        textTurn('Made the workflow.'),
      )
      const r = await start({ agentType: 'workflow-builder', prompt: 'Make a workflow that logs' })
      const run = await waitForRun(t, r.body.data.runId)
      expect(run.status).toBe('success')
      const answers = (run.nodes.tools_1.result.transcript as Array<{ role: string; content: string }>)
        .filter((m) => m.role === 'tool')
        .map((m) => JSON.parse(m.content))
      expect(answers[0].status).toBe(200)
      expect(answers[0].body.data.name).toBe('Made by an agent')
      // Refused by the operation, naming what the worker session lacks; nothing was made.
      expect(answers[1].status).toBe(403)
      expect(answers[1].body.details).toEqual([{ message: 'missing permission', permission: 'connector:create' }])
      expect(
        (await t.call('GET', '/v1/connectors')).body.data.items.filter((c: { name: string }) => c.name === 'x'),
      ).toEqual([])
      expect(answers[2].error).toContain('not a tool of this agent')
      expect(receiver.requests.some((q) => q.path === '/not-mine')).toBe(false)
      expect(run.nodes.tools_1.result.calls).toEqual([
        { name: 'automaton-api', ok: true },
        { name: 'automaton-api', ok: true },
        { name: 'http-request', ok: false },
      ])
      expect((await t.call('GET', `/v1/workflows/${answers[0].body.data.id}`)).body.data.name).toBe('Made by an agent')

      // The session is revoked with the run's end: its key answers 401 now.
      const session = await t.system.store.get<{ key_id: string; sealed_key: string; ended_at: number | null }>(
        'SELECT key_id, sealed_key, ended_at FROM agent_runs WHERE run_id = $1',
        [r.body.data.runId],
      )
      expect(session!.ended_at).not.toBeNull()
      const raw = await t.system.secretBox.open(session!.sealed_key)
      expect(raw).toMatch(/^svcsk_/)
      const afterEnd = await t.call('GET', '/v1/workflows', { key: raw })
      expect({ status: afterEnd.status, message: afterEnd.body.message }).toEqual({
        status: 401,
        message: 'API key has been revoked',
      })
      const key = (await t.call('GET', `/v1/api-keys/${session!.key_id}`)).body.data
      expect(key.revokedAt).toMatch(/^\d{4}-/)
    })

    it("puts the generated definition back when someone changed the agent's workflow", async () => {
      const row = await t.system.store.get<{ workflow_id: string }>(
        "SELECT workflow_id FROM agent_workflows WHERE organization_id = $1 AND agent_type = 'researcher'",
        [t.orgId],
      )
      const edited = {
        triggerNodeIds: ['root'],
        nodes: { root: { type: 'agent', children: ['say'] }, say: { type: 'log', payload: { message: 'hijacked' } } },
      }
      expect((await t.call('PUT', `/v1/workflows/${row!.workflow_id}`, { body: { definition: edited } })).status).toBe(
        200,
      )
      expect((await t.call('POST', `/v1/workflows/${row!.workflow_id}/publish`)).status).toBe(200)
      model.queue(textTurn('Back to normal.'))
      const r = await start({ agentType: 'researcher', prompt: 'Are you yourself?' })
      const run = await waitForRun(t, r.body.data.runId)
      expect(run.nodes.say).toBeUndefined()
      expect(run.nodes.model_1.result.text).toBe('Back to normal.')
    })

    it('refuses a disabled agent type with 403 and leaves it out of the list', async () => {
      // A type an operator disabled: the built-in researcher in a system with it disabled.
      const disabled = await openTestSystem(kind, {
        AUTOMATON_AI_BASE_URL: model.url,
        AUTOMATON_AI_MODEL: 'scripted',
        AUTOMATON_AGENTS_DISABLED: 'researcher',
      })
      try {
        const r = await disabled.call('POST', '/v1/agent-runs', { body: { agentType: 'researcher', prompt: 'hi' } })
        expect(r.status).toBe(403)
        expect(r.body.message).toContain('disabled')
        const list = (await disabled.call('GET', '/v1/agent-runs/agents')).body.data.map(
          (a: { agentType: string }) => a.agentType,
        )
        expect(list).not.toContain('researcher')
        expect(list).toContain('workflow-builder')
      } finally {
        await disabled.close()
      }
    })

    it('cancels an agent run while its tool call is in flight, and ends its session', async () => {
      let release!: () => void
      const held = new Promise<void>((resolve) => (release = resolve))
      receiver.respond(async (q) => {
        if (q.path === '/slow') await held
        return Response.json({ ok: true })
      })
      model.queue(toolTurn([{ name: 'http-request', args: { url: `${receiver.url}/slow` } }]), textTurn('never'))
      const r = await start({ agentType: 'researcher', prompt: 'slow one' })
      const runId = r.body.data.runId
      await waitForRun(t, runId, (run) => run.nodes.tools_1?.status === 'running', 10_000)
      const cancelled = await t.call('POST', `/v1/agent-runs/${runId}/cancel`)
      expect(cancelled.status).toBe(200)
      const run = await waitForRun(t, runId)
      expect(run.status).toBe('cancelled')
      release()
      const session = await t.system.store.get<{ ended_at: number | null }>(
        'SELECT ended_at FROM agent_runs WHERE run_id = $1',
        [runId],
      )
      expect(session!.ended_at).not.toBeNull()
      expect((await t.call('POST', '/v1/agent-runs/run_nope/cancel')).status).toBe(404)
    })
  })
}
