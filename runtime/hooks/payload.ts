/**
 * The body an execution hook receives for a journal event:
 * `{ type, timestamp, data: { organizationId, workflowId, runId, nodeId, status, … } }`.
 *
 * What it carries is chosen field by field from the event, never passed through whole: node
 * inputs (resolved payloads may hold connector secrets), logs, variables and the trigger's
 * request headers (which may hold credentials) are left out, and a node result larger than
 * `MAX_RESULT_BYTES` is replaced by `resultOmitted: true` (the run API has it).
 */
import type { RecordedEvent } from '../../core/domain-events.ts'
import { runStatusOf } from '../../core/domain/run-lifecycle.ts'
import { iso } from '../../core/time.ts'

export const MAX_RESULT_BYTES = 16 * 1024
const MAX_ERROR_CHARS = 2000

/** The `webhook-id` of an event: stable for every endpoint, retry and replay. */
export const hookEventId = (event: Pick<RecordedEvent, 'id'>) => `evt_${event.id}`

const NODE_STATUS: Record<string, string> = {
  'node.started': 'running',
  'node.succeeded': 'success',
  'node.partial': 'partial',
  'node.failed': 'failure',
  'node.skipped': 'skipped',
  'node.retrying': 'running',
  'node.looping': 'running',
  'node.cancelled': 'cancelled',
}

type Data = Record<string, unknown>

export function hookPayload(event: RecordedEvent): string {
  const d = event.data
  // sequence: the event's place in its run's journal, since deliveries may arrive out of order.
  const data: Data = {
    organizationId: event.organizationId,
    workflowId: event.workflowId,
    runId: event.runId,
    sequence: event.seq,
  }
  if (event.type.startsWith('node.')) {
    data.nodeId = event.nodeId
    data.nodeKey = d.key ?? event.nodeId
  }
  data.status =
    event.type === 'node.waiting'
      ? ((d.wait as { kind?: string } | undefined)?.kind ?? 'waiting')
      : (runStatusOf(event.type) ?? NODE_STATUS[event.type])
  Object.assign(data, details(event.type, d))
  return JSON.stringify({ type: event.type, timestamp: iso(event.at), data })
}

function details(type: string, d: Data): Data {
  switch (type) {
    case 'run.started':
      return pick(d, {
        workflowVersion: 'workflowVersion',
        triggerType: 'triggerType',
        triggerNodeId: 'triggerNodeId',
        triggeredBy: 'triggeredBy',
        eventId: 'triggerEventId',
        retryOf: 'retryOf',
      })
    case 'run.waiting':
      return pick(d, { key: 'nodeKey' })
    case 'run.resumed':
      return pick(d, { key: 'nodeKey', by: 'resumedBy' })
    case 'run.failed': {
      const error = d.error as Data | null | undefined
      return { error: error ? { ...error, message: clip(error.message) } : null }
    }
    case 'run.cancelled':
      return pick(d, { reason: 'reason' })
    case 'node.started':
      return pick(d, { type: 'nodeType', attempt: 'attempt' })
    case 'node.succeeded':
    case 'node.partial':
      return {
        ...pick(d, {
          attempt: 'attempt',
          branch: 'branch',
          reused: 'reused',
          trigger: 'trigger',
          iterations: 'iterations',
          failedIterations: 'failedIterations',
        }),
        ...result(d),
      }
    case 'node.failed':
      return { ...pick(d, { attempt: 'attempt', code: 'code' }), error: clip(d.error) }
    case 'node.retrying':
      return {
        ...pick(d, { attempt: 'attempt', nextAttempt: 'nextAttempt', delayMs: 'delayMs' }),
        error: clip(d.error),
      }
    case 'node.skipped':
      return pick(d, { reason: 'reason' })
    case 'node.looping':
      return pick(d, { items: 'items' })
    case 'node.waiting': {
      const wait = (d.wait ?? {}) as { until?: number; timeoutMs?: number; triggerType?: string }
      return {
        wait: { until: iso(wait.until), timeoutMs: wait.timeoutMs ?? null, triggerType: wait.triggerType ?? null },
      }
    }
    default:
      return {}
  }
}

/** The node's result, unless it is too large; a trigger's result without its request headers. */
function result(d: Data): Data {
  if (!('result' in d)) return {}
  let value = d.result
  if (d.trigger === true && value && typeof value === 'object') {
    const { headers: _headers, ...rest } = value as Data
    value = rest
  }
  const text = JSON.stringify(value ?? null)
  return text.length > MAX_RESULT_BYTES ? { resultOmitted: true } : { result: value ?? null }
}

function pick(d: Data, fields: Record<string, string>): Data {
  const out: Data = {}
  for (const [from, to] of Object.entries(fields)) if (d[from] !== undefined) out[to] = d[from]
  return out
}

function clip(value: unknown): string | null {
  if (value === undefined || value === null) return null
  const text = String(value)
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text
}
