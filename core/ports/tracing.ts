/**
 * Traces as a port: W3C trace context (`traceparent`) for each run, and spans of runs and node
 * executions handed to an exporter. Spans are made from what the journal made durable (start and
 * end times already recorded), so a run that moves between processes keeps one trace: its span
 * context is stored with the run, and whichever process ends a node or the run reports it.
 */
export interface RunTraceInfo {
  /** The run's span context, `00-<trace id>-<span id>-<flags>`. */
  traceparent: string
  /** The caller's span the run continues, when a traceparent came with the request. */
  parent: string | null
  runId: string
  workflowId: string
  organizationId: string
}

export interface Tracing {
  /** A span context for a new run: in the caller's trace when `incoming` is a valid traceparent, else a new trace. */
  runContext(incoming: string | null | undefined): { traceparent: string; parent: string | null }
  /** A node execution ended (`outcome`: succeeded, failed, partial). */
  node(
    run: RunTraceInfo,
    node: { nodeId: string; type: string; key: string; attempt: number },
    startedAt: number,
    endedAt: number,
    outcome: string,
    error?: string,
  ): void
  /** The run ended: one span from admission to the end. */
  run(run: RunTraceInfo, startedAt: number, endedAt: number, status: string): void
  /** A waiting run resumed: a span linked to the run's. */
  resumed(run: RunTraceInfo, at: number, nodeKey: string | null): void
  flush(): Promise<void>
  shutdown(): Promise<void>
}

const HEX = /^[0-9a-f]+$/
/** The trace and span ids of a valid W3C traceparent, or null. */
export function parseTraceparent(
  value: string | null | undefined,
): { traceId: string; spanId: string; sampled: boolean } | null {
  if (!value) return null
  const parts = value.trim().toLowerCase().split('-')
  if (parts.length < 4 || parts[0] === 'ff' || parts[0].length !== 2) return null
  const [, traceId, spanId, flags] = parts
  if (traceId.length !== 32 || spanId.length !== 16 || flags.length !== 2) return null
  if (!HEX.test(traceId) || !HEX.test(spanId) || !HEX.test(flags) || /^0+$/.test(traceId) || /^0+$/.test(spanId))
    return null
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 }
}

const HEX_OF_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))
/** Random bytes drawn a few kilobytes at a time: every run takes 24 for its trace and span ids. */
const pool = { bytes: new Uint8Array(4096), next: 4096 }

function randomHex(bytes: number): string {
  if (pool.next + bytes > pool.bytes.length) {
    crypto.getRandomValues(pool.bytes)
    pool.next = 0
  }
  let out = ''
  for (let i = 0; i < bytes; i++) out += HEX_OF_BYTE[pool.bytes[pool.next++]]
  return out
}

/** A run span context: the caller's trace, or a new one; always a new span id. */
export function newRunContext(incoming: string | null | undefined): { traceparent: string; parent: string | null } {
  const parsed = parseTraceparent(incoming)
  const traceId = parsed?.traceId ?? randomHex(16)
  return {
    traceparent: `00-${traceId}-${randomHex(8)}-01`,
    parent: parsed ? `00-${parsed.traceId}-${parsed.spanId}-01` : null,
  }
}

/** Trace contexts without export: runs still carry a traceparent for logs and later export. */
export const noTracing: Tracing = {
  runContext: newRunContext,
  node() {},
  run() {},
  resumed() {},
  flush: async () => {},
  shutdown: async () => {},
}
