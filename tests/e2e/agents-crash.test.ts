/**
 * An agent run scaled out on Postgres and NATS, its worker killed with kill -9 while a tool call
 * is in flight: another worker takes the run over and finishes it exactly once, and the model
 * step that had finished before the crash is not asked again (it is in the journal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
  finish,
  type ScriptedOpenAi,
  startScriptedOpenAi,
  textDelta,
  toolFragment,
  usageOnly,
} from '../helpers/openai-server.ts'
import { api, startWorker, until } from '../helpers/process.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { scaledOut } from '../helpers/scaled-out.ts'
import { TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'

const KEY = 'svcsk_agents_crash_bootstrap_key_0123456789abc'
const enabled = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
if (!enabled)
  warnSkipped(
    'the agent crash test (API and workers on Postgres and NATS)',
    TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL',
  )

describe.skipIf(!enabled)('an agent run across kill -9 of its worker', () => {
  let model: ScriptedOpenAi
  let receiver: Receiver
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))

  beforeAll(() => {
    model = startScriptedOpenAi()
    receiver = startReceiver()
    receiver.respond(async (q, index) => {
      // The first call is held until its worker is dead; the re-execution is answered.
      if (index === 0) await held
      return Response.json({ page: `facts from ${q.path}` })
    })
  })

  afterAll(async () => {
    release()
    await model?.stop()
    await receiver?.stop()
  })

  // Started after the model and the receiver: the processes are told the model's address.
  const cluster = scaledOut(KEY, 1, () => ({
    AUTOMATON_AI_BASE_URL: model.url,
    AUTOMATON_AI_MODEL: 'scripted',
    AUTOMATON_AI_DEFAULT_CREDITS: '100',
  }))

  it('is taken over by another worker and finishes once, without asking the model again for a finished step', async () => {
    const { env, workers } = cluster
    const apiServer = cluster.api
    model.queue(
      {
        steps: [
          toolFragment(0, {
            id: 'call_fetch',
            name: 'http-request',
            arguments: JSON.stringify({ url: `${receiver.url}/facts` }),
          }),
          finish('tool_calls'),
          usageOnly(1000, 50),
        ],
      },
      { steps: [textDelta('Here are the facts.'), finish('stop'), usageOnly(1200, 60)] },
    )
    const started = await api(apiServer.url, 'POST', '/v1/agent-runs', KEY, {
      agentType: 'researcher',
      prompt: 'Find the facts',
    })
    expect(started.status).toBe(200)
    const runId = started.body.data.runId as string

    // The tool call is in flight on the worker, and the model step before it is in the journal
    // (the engine writes a step's end in the background, so it may reach the journal just after
    // the next step began): kill the worker.
    await until('the tool call to arrive', async () => receiver.requests.length >= 1, 20_000)
    await until(
      'the first model step in the journal',
      async () =>
        (
          await queryDatabase<{ n: number }>(
            env,
            "SELECT COUNT(*) AS n FROM events WHERE run_id = $1 AND node_id = 'model_1' AND type = 'node.succeeded'",
            [runId],
          )
        )[0].n > 0,
      20_000,
    )
    expect(model.requests).toHaveLength(1)
    await workers[0].stop('SIGKILL')
    workers.push(await startWorker(env))

    const run = await until(
      'the run to finish on the other worker',
      async () => {
        const r = await api(apiServer.url, 'GET', `/v1/runs/${runId}`, KEY)
        return ['success', 'failure', 'cancelled'].includes(r.body.data?.status) ? r.body.data : undefined
      },
      40_000,
    )
    expect(run.status).toBe('success')
    expect(run.nodes.model_2.result.text).toBe('Here are the facts.')
    expect(JSON.stringify(run.nodes.tools_1.result.transcript)).toContain('facts from /facts')
    // The first model step was journaled before the crash: asked once; the second once.
    expect(model.requests).toHaveLength(2)
    // The tool call in flight was executed again (with the same idempotency key), once.
    expect(receiver.requests).toHaveLength(2)
    expect(receiver.requests[1].headers['idempotency-key'] ?? '').toBe(
      receiver.requests[0].headers['idempotency-key'] ?? '',
    )
    const ends = await queryDatabase<{ type: string }>(
      env,
      "SELECT type FROM events WHERE run_id = $1 AND type LIKE 'run.%' AND type <> 'run.started'",
      [runId],
    )
    expect(ends.map((e) => e.type)).toEqual(['run.succeeded'])
    const session = await queryDatabase<{ ended_at: number | null }>(
      env,
      'SELECT ended_at FROM agent_runs WHERE run_id = $1',
      [runId],
    )
    expect(session[0].ended_at).not.toBeNull()
  }, 90_000)
})
