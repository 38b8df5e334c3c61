/**
 * What the event stream tests share: the events that end a run, and a workflow of three nodes
 * (a log, a code transform, a log) whose runs record their events over several writes.
 */
import { linear } from './workflows.ts'

/** The event types that end a run's stream. */
export const TERMINAL = ['run.succeeded', 'run.partial', 'run.failed', 'run.cancelled']

/** Three nodes after the trigger, reading the trigger's `n`. */
export const three = linear(
  {
    a: { type: 'log', payload: { message: 'first {{root.result.body.n}}' } },
    b: {
      type: 'code-transform',
      payload: { code: 'function transform(i) { return i * 2 }', input: '{{root.result.body.n}}' },
    },
    c: { type: 'log', payload: { message: 'done' } },
  },
  ['a', 'b', 'c'],
)
