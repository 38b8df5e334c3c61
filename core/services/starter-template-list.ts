/**
 * The starter templates a fresh installation offers: each runs with the built-in nodes alone (no
 * connector, no outside account), so a newcomer can fork one and watch it run at once.
 */
import type { CreateTemplateBody } from '../domain/template.ts'
import type { Definition } from '../domain/workflow.ts'

type Nodes = Definition['nodes']

/** A manual trigger (webhook or API run) followed by `nodes`, the first of which is `first`. */
const afterTrigger = (first: string, nodes: Record<string, unknown>) => ({
  triggerNodeIds: ['root'],
  nodes: { root: { type: 'manual', payload: {}, children: [first] }, ...nodes } as Nodes,
})

export const STARTER_TEMPLATES: readonly (CreateTemplateBody & { slug: string })[] = [
  {
    slug: 'starter-webhook-logger',
    name: 'Log every webhook call',
    description:
      "Receives any JSON on the workflow's webhook URL and logs its body: the quickest way to see what a system sends you.",
    tags: ['core', 'generic'],
    definition: afterTrigger('record', {
      record: { type: 'log', payload: { message: 'received {{root.result.body}}' } },
    }),
  },
  {
    slug: 'starter-daily-heartbeat',
    name: 'Daily heartbeat',
    description: 'Runs every morning at 09:00 UTC and logs the tick: a schedule to build daily reports or checks on.',
    tags: ['core', 'schedule'],
    definition: {
      triggerNodeIds: ['root'],
      nodes: {
        root: { type: 'cronjob', payload: { expression: '0 9 * * *', timezone: 'UTC' }, children: ['beat'] },
        beat: { type: 'log', payload: { message: 'heartbeat for {{root.result.body.scheduledFor}}' } },
      } as Nodes,
    },
  },
  {
    slug: 'starter-route-by-amount',
    name: 'Route by amount',
    description: 'Sends orders above 100 one way and the rest another: send {"amount": 150} to its webhook to try it.',
    tags: ['core', 'logic'],
    definition: afterTrigger('large', {
      large: {
        type: 'if',
        payload: { condition: { $and: [{ '{{root.result.body.amount}}': { $gt: 100 } }] } },
        children: ['review', 'accept'],
      },
      review: { type: 'log', branch: 'then', payload: { message: 'large order: {{root.result.body.amount}}' } },
      accept: { type: 'log', branch: 'else', payload: { message: 'small order: {{root.result.body.amount}}' } },
    }),
  },
  {
    slug: 'starter-approval',
    name: 'Ask for approval before continuing',
    description: 'Pauses each run until a person approves or rejects it (from the run page or the API), then goes on.',
    tags: ['core', 'flow'],
    definition: afterTrigger('ask', {
      ask: {
        type: 'approval',
        payload: { message: 'Go ahead with {{root.result.body}}?' },
        children: ['approved', 'rejected'],
      },
      approved: { type: 'log', branch: 'approved', payload: { message: 'approved' } },
      rejected: { type: 'log', branch: 'rejected', payload: { message: 'rejected' } },
    }),
  },
  {
    slug: 'starter-order-total',
    name: 'Compute an order total',
    description:
      'Adds up price × quantity of the items it receives, in a sandboxed JavaScript step: send {"items": [{"price": 2, "qty": 3}]}.',
    tags: ['core', 'data'],
    definition: afterTrigger('total', {
      total: {
        type: 'code-transform',
        payload: {
          code: 'function transform(input) { return (input.items || []).reduce((sum, i) => sum + i.price * i.qty, 0) }',
          input: { items: '{{root.result.body.items}}' },
        },
        children: ['report'],
      },
      report: { type: 'log', payload: { message: 'total: {{total.result.output}}' } },
    }),
  },
]
