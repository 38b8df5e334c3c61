import { describe, expect, it } from 'bun:test'
import type { RecordedEvent } from '../../../core/domain-events.ts'
import { hookEventId, hookPayload, MAX_RESULT_BYTES } from '../../../runtime/hooks/payload.ts'

const base = { id: 42, organizationId: 'org_1', workflowId: 'wf_1', runId: 'run_1', seq: 3, at: Date.UTC(2026, 0, 1) }
const payloadOf = (event: Partial<RecordedEvent> & { type: string; data: Record<string, unknown> }) =>
  JSON.parse(hookPayload({ ...base, nodeId: null, ...event } as RecordedEvent))

describe('hook payloads', () => {
  it("wraps an event as { type, timestamp, data } with the run's identity and status", () => {
    expect(hookEventId(base)).toBe('evt_42')
    expect(
      payloadOf({
        type: 'run.started',
        data: {
          runId: 'run_1',
          workflowId: 'wf_1',
          workflowVersion: 2,
          triggerType: 'manual',
          triggerNodeId: 'root',
          triggeredBy: 'webhook',
          eventId: 'evt_01X',
          retryOf: null,
        },
      }),
    ).toEqual({
      type: 'run.started',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: {
        organizationId: 'org_1',
        workflowId: 'wf_1',
        runId: 'run_1',
        sequence: 3,
        status: 'running',
        workflowVersion: 2,
        triggerType: 'manual',
        triggerNodeId: 'root',
        triggeredBy: 'webhook',
        triggerEventId: 'evt_01X',
        retryOf: null,
      },
    })
    expect(payloadOf({ type: 'run.failed', data: { error: { message: 'boom', nodeId: 'a' } } }).data).toMatchObject({
      status: 'failure',
      error: { message: 'boom', nodeId: 'a' },
    })
  })

  it("never carries node inputs, logs, variables or the trigger's request headers", () => {
    const done = payloadOf({
      type: 'node.succeeded',
      nodeId: 'call',
      data: {
        key: 'call',
        attempt: 1,
        input: { headers: { authorization: 'Bearer secret' } },
        result: { status: 200 },
        logs: ['x'],
        vars: { token: 't' },
      },
    })
    expect(done.data).toEqual({
      organizationId: 'org_1',
      workflowId: 'wf_1',
      runId: 'run_1',
      sequence: 3,
      nodeId: 'call',
      nodeKey: 'call',
      status: 'success',
      attempt: 1,
      result: { status: 200 },
    })
    const trigger = payloadOf({
      type: 'node.succeeded',
      nodeId: 'root',
      data: {
        key: 'root',
        attempt: 1,
        trigger: true,
        result: {
          type: 'webhook',
          body: { a: 1 },
          headers: { authorization: 'Bearer secret', cookie: 'c' },
          receivedAt: 'now',
        },
      },
    })
    expect(trigger.data.result).toEqual({ type: 'webhook', body: { a: 1 }, receivedAt: 'now' })
    expect(JSON.stringify(trigger)).not.toContain('secret')
    const failed = payloadOf({
      type: 'node.failed',
      nodeId: 'call',
      data: { key: 'call', attempt: 2, input: { password: 'p' }, error: 'x'.repeat(5000), code: 'http' },
    })
    expect(failed.data.error).toHaveLength(2001)
    expect(JSON.stringify(failed)).not.toContain('password')
  })

  it('leaves out a result larger than the cap and says so', () => {
    const big = payloadOf({
      type: 'node.succeeded',
      nodeId: 'a',
      data: { key: 'a', attempt: 1, result: { blob: 'y'.repeat(MAX_RESULT_BYTES) } },
    })
    expect(big.data.result).toBeUndefined()
    expect(big.data.resultOmitted).toBe(true)
  })

  it('describes waits, retries and skips', () => {
    const until = Date.UTC(2026, 0, 2)
    expect(
      payloadOf({
        type: 'node.waiting',
        nodeId: 'd',
        data: { key: 'd', wait: { until, kind: 'scheduled', startedAt: 1, state: { secret: 1 } } },
      }).data,
    ).toMatchObject({
      status: 'scheduled',
      wait: { until: '2026-01-02T00:00:00.000Z', timeoutMs: null, triggerType: null },
    })
    expect(
      payloadOf({
        type: 'node.retrying',
        nodeId: 'c',
        data: { key: 'c', attempt: 1, error: 'e', nextAttempt: 2, delayMs: 1000 },
      }).data,
    ).toMatchObject({ status: 'running', attempt: 1, nextAttempt: 2, delayMs: 1000, error: 'e' })
    expect(payloadOf({ type: 'node.skipped', nodeId: 's', data: { key: 's', reason: 'branch' } }).data).toMatchObject({
      status: 'skipped',
      reason: 'branch',
    })
  })
})
