/** Nodes that wait: delay (for time), wait (for an event or a resume call), approval. */
import { defineAction, Type } from '../../../core/plugin/sdk.ts'

const DAY = 24 * 60 * 60 * 1000

export const delay = defineAction({
  type: 'delay',
  name: 'Delay',
  description: 'Waits for a duration. Durable: the run is put away and resumes on time after a restart.',
  tags: ['flow', 'core'],
  payload: Type.Object({ delayMs: Type.Integer({ minimum: 0, maximum: 365 * DAY }) }),
  result: Type.Object({ delayedMs: Type.Integer() }),
  run: (ctx) => ctx.wait({ until: ctx.now() + ctx.payload.delayMs }),
  resume: (ctx) => ({ delayedMs: ctx.payload.delayMs }),
})

export const wait = defineAction({
  type: 'wait',
  name: 'Wait for an event',
  description:
    'Waits until a matching trigger event arrives, or POST /v1/runs/{id}/nodes/{nodeId}/resume is called; branches "resumed" and "timed_out".',
  tags: ['flow', 'core'],
  payload: Type.Object({
    triggerType: Type.Optional(Type.String({ description: 'the trigger type whose events resume this node' })),
    triggerConfig: Type.Optional(Type.Record(Type.String(), Type.Any(), { description: 'fields an event must match' })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 * DAY, default: 300_000 })),
  }),
  result: Type.Object({ resumed: Type.Boolean(), data: Type.Any() }),
  branches: ['resumed', 'timed_out'],
  run: (ctx) =>
    ctx.wait({
      triggerType: ctx.payload.triggerType,
      match: ctx.payload.triggerConfig,
      timeoutMs: ctx.payload.timeoutMs,
    }),
  resume: (ctx, data) => ctx.branch('resumed', { resumed: true, data: data ?? null }),
  timeout: (ctx) => ctx.branch('timed_out', { resumed: false, data: null }),
})

export const approval = defineAction({
  type: 'approval',
  name: 'Approval',
  description:
    'Waits for a person to approve or reject: resume with { "data": { "approved": true } }. Branches "approved", "rejected", "timed_out".',
  tags: ['flow', 'core'],
  payload: Type.Object({
    message: Type.Optional(Type.String({ maxLength: 5000 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 * DAY, default: 7 * DAY })),
  }),
  result: Type.Object({ approved: Type.Boolean(), data: Type.Any() }),
  branches: ['approved', 'rejected', 'timed_out'],
  run: (ctx) => ctx.wait({ triggerType: 'approval', timeoutMs: ctx.payload.timeoutMs }),
  resume(ctx, data) {
    const approved = (data as { approved?: unknown } | null)?.approved === true
    return ctx.branch(approved ? 'approved' : 'rejected', { approved, data: data ?? null })
  },
  timeout: (ctx) => ctx.branch('timed_out', { approved: false, data: null }),
})
