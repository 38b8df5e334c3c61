/**
 * The tracing port over the OpenTelemetry SDK: spans built from the journal's recorded times
 * (with the run's stored span context as their parent or own id) and exported in batches by
 * OTLP/HTTP, or to any exporter given (tests capture spans in memory).
 */
import {
  type Attributes,
  type HrTime,
  type Link,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
} from '@opentelemetry/api'
import { millisToHrTime } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace'
import { newRunContext, parseTraceparent, type RunTraceInfo, type Tracing } from '../../core/ports/tracing.ts'

const SCOPE = { name: 'automaton', version: '1' }

function contextOf(traceparent: string | null): SpanContext | undefined {
  const parsed = parseTraceparent(traceparent)
  return parsed
    ? { traceId: parsed.traceId, spanId: parsed.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true }
    : undefined
}

function spanId(): string {
  let out = ''
  for (const b of crypto.getRandomValues(new Uint8Array(8))) out += b.toString(16).padStart(2, '0')
  return out
}

function duration(start: number, end: number): HrTime {
  return millisToHrTime(Math.max(0, end - start))
}

export function createOtelTracing(options: {
  endpoint?: string
  exporter?: SpanExporter
  serviceName: string
  serviceVersion: string
  role: string
}): Tracing {
  const exporter =
    options.exporter ?? new OTLPTraceExporter({ url: `${options.endpoint!.replace(/\/+$/, '')}/v1/traces` })
  const processor = new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: 1000,
    maxQueueSize: 20_000,
    maxExportBatchSize: 512,
  })
  const resource = resourceFromAttributes({
    'service.name': options.serviceName,
    'service.version': options.serviceVersion,
    'automaton.role': options.role,
  })

  function emit(span: {
    name: string
    context: SpanContext
    parent?: SpanContext
    start: number
    end: number
    attributes: Attributes
    error?: string
    links?: Link[]
    kind?: SpanKind
  }) {
    const readable: ReadableSpan = {
      name: span.name,
      kind: span.kind ?? SpanKind.INTERNAL,
      spanContext: () => span.context,
      parentSpanContext: span.parent,
      startTime: millisToHrTime(span.start),
      endTime: millisToHrTime(span.end),
      duration: duration(span.start, span.end),
      status: span.error ? { code: SpanStatusCode.ERROR, message: span.error } : { code: SpanStatusCode.OK },
      attributes: span.attributes,
      links: span.links ?? [],
      events: [],
      ended: true,
      resource,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    }
    processor.onEnd(readable)
  }

  const runAttributes = (run: RunTraceInfo): Attributes => ({
    'automaton.run.id': run.runId,
    'automaton.workflow.id': run.workflowId,
    'automaton.organization.id': run.organizationId,
  })

  return {
    runContext: newRunContext,
    node(run, node, startedAt, endedAt, outcome, error) {
      const parent = contextOf(run.traceparent)
      if (!parent) return
      emit({
        name: `node ${node.type}`,
        context: { traceId: parent.traceId, spanId: spanId(), traceFlags: TraceFlags.SAMPLED },
        parent,
        start: startedAt,
        end: endedAt,
        error: outcome === 'failed' ? (error ?? 'failed') : undefined,
        attributes: {
          ...runAttributes(run),
          'automaton.node.id': node.nodeId,
          'automaton.node.type': node.type,
          'automaton.node.key': node.key,
          'automaton.node.attempt': node.attempt,
          'automaton.node.outcome': outcome,
        },
      })
    },
    run(run, startedAt, endedAt, status) {
      const own = contextOf(run.traceparent)
      if (!own) return
      emit({
        name: 'run',
        context: { ...own, isRemote: false },
        parent: contextOf(run.parent),
        start: startedAt,
        end: endedAt,
        kind: SpanKind.SERVER,
        error: status === 'failure' ? 'the run failed' : undefined,
        attributes: { ...runAttributes(run), 'automaton.run.status': status },
      })
    },
    resumed(run, at, nodeKey) {
      const own = contextOf(run.traceparent)
      if (!own) return
      emit({
        name: 'run resumed',
        context: { traceId: own.traceId, spanId: spanId(), traceFlags: TraceFlags.SAMPLED },
        parent: own,
        start: at,
        end: at,
        links: [{ context: own }],
        attributes: { ...runAttributes(run), ...(nodeKey ? { 'automaton.node.key': nodeKey } : {}) },
      })
    },
    flush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  }
}
