/**
 * Traces: a run continues the caller's W3C trace, its nodes are children of the run's span, a
 * resumed run links to its span, and a run without a traceparent starts a trace of its own.
 * Spans are captured in memory through the OpenTelemetry adapter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace'
import { createOtelTracing } from '../../adapters/otel/tracing.ts'
import { parseTraceparent } from '../../core/ports/tracing.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

const CALLER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

describe('traces', () => {
  let t: TestSystem
  const exporter = new InMemorySpanExporter()
  const tracing = createOtelTracing({ exporter, serviceName: 'automaton', serviceVersion: 'test', role: 'embedded' })
  beforeAll(async () => {
    t = await openTestSystem('sqlite', {}, { tracing })
  })
  afterAll(() => t.close())

  const spansOf = async (runId: string) => {
    await tracing.flush()
    return exporter.getFinishedSpans().filter((s) => s.attributes['automaton.run.id'] === runId)
  }

  it("continues the caller's trace: the run span is the caller's child, each node the run's", async () => {
    const w = await createLive(t, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['say'] },
          say: { type: 'log', payload: { message: 'hi' }, children: ['again'] },
          again: { type: 'log', payload: { message: 'again' } },
        },
      },
    })
    const started = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
      key: null,
      body: {},
      headers: { traceparent: CALLER },
    })
    const runId = started.body.data.runIds[0]
    await waitForRun(t, runId)
    const row = await t.system.store.get<{ traceparent: string; trace_caller: string }>(
      'SELECT traceparent, trace_caller FROM runs WHERE id = $1',
      [runId],
    )
    const own = parseTraceparent(row!.traceparent)!
    expect(own.traceId).toBe('0af7651916cd43dd8448eb211c80319c')
    expect(row!.trace_caller).toBe(CALLER)

    let spans = await spansOf(runId)
    for (let i = 0; i < 50 && spans.length < 3; i++) spans = await spansOf(runId)
    const run = spans.find((s) => s.name === 'run')!
    expect(run.spanContext()).toMatchObject({ traceId: own.traceId, spanId: own.spanId })
    expect(run.parentSpanContext).toMatchObject({ traceId: own.traceId, spanId: 'b7ad6b7169203331' })
    expect(run.attributes).toMatchObject({ 'automaton.run.status': 'success', 'automaton.workflow.id': w.id })
    const nodes = spans.filter((s) => s.name.startsWith('node '))
    expect(nodes.map((s) => s.attributes['automaton.node.id']).sort()).toEqual(['again', 'say'])
    for (const node of nodes) {
      expect(node.spanContext().traceId).toBe(own.traceId)
      expect(node.parentSpanContext?.spanId).toBe(own.spanId)
      expect(node.spanContext().spanId).not.toBe(own.spanId)
    }
  })

  it('starts a trace of its own without a traceparent, and links a resumed run to its span', async () => {
    const w = await createLive(t, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['pause'] },
          pause: { type: 'delay', payload: { delayMs: 50 }, children: ['say'] },
          say: { type: 'log', payload: { message: 'later' } },
        },
      },
    })
    const runId = (
      await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {}, headers: { traceparent: 'not-a-traceparent' } })
    ).body.data.runId
    await waitForRun(t, runId)
    const row = await t.system.store.get<{ traceparent: string; trace_caller: string | null }>(
      'SELECT traceparent, trace_caller FROM runs WHERE id = $1',
      [runId],
    )
    expect(parseTraceparent(row!.traceparent)).not.toBeNull()
    expect(row!.trace_caller).toBeNull()
    let spans = await spansOf(runId)
    for (let i = 0; i < 50 && !spans.some((s) => s.name === 'run'); i++) spans = await spansOf(runId)
    const run = spans.find((s) => s.name === 'run')!
    expect(run.parentSpanContext).toBeUndefined()
    const resumed = spans.find((s) => s.name === 'run resumed')!
    expect(resumed.links[0].context.spanId).toBe(run.spanContext().spanId)
    expect(resumed.parentSpanContext?.spanId).toBe(run.spanContext().spanId)
  })
})
