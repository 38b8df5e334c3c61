/**
 * What the HTTP API needs from the run engine, as ports the engine (runtime/) implements:
 * admitting runs, steering them, checking definitions and recording events. Core never imports
 * the engine; the engine's own contracts are in runtime/engine/types.ts.
 */
import type { Static, TUnknown } from '@sinclair/typebox'
import type { TriggerEvent as TriggerEventSchema } from '../plugin/schemas.ts'
import type { ErrorDetail } from '../errors.ts'
import type { DomainEvent, RecordedEvent } from '../domain-events.ts'
import type { SqlExecutor } from './store.ts'
import type { NodeRecord, RunStatus, TriggeredBy } from '../domain/run.ts'
import type { Definition } from '../domain/workflow.ts'

/**
 * The event a run starts with; the trigger node's result. The type of the SDK's `TriggerEvent`
 * schema (core/plugin/schemas.ts), with a body of any shape: one name for the schema and its type.
 */
export type TriggerEvent = Static<ReturnType<typeof TriggerEventSchema<TUnknown>>>

/** A run to admit: which workflow and version, the event it starts with, and who asks. */
export interface DispatchRequest {
  organizationId: string
  workflowId: string
  /**
   * `live`: the live version (automatic triggers). `display`: the draft if any, else live (API runs).
   * A `PinnedVersion`: the version and definition an earlier run executed (a retry).
   */
  version: 'live' | 'display' | PinnedVersion
  event: TriggerEvent
  triggerNodeId?: string
  triggeredBy: TriggeredBy
  /** Automatic runs obey status, cooldown and remaining runs; API runs do not. */
  automatic: boolean
  idempotencyKey?: string
  runId?: string
  eventId?: string
  propValues?: Record<string, unknown>
  /** Node results to reuse (a retry), by node instance key; the new run's `retryOf` is `fromRunId`. */
  seed?: { fromRunId: string; nodes: Record<string, unknown> }
  /** Anonymous run of a public_execute workflow, limited per caller. */
  publicCaller?: string
  /**
   * The x402 payment of this webhook run is settled. A webhook run of a live version with an
   * x402Config is admitted only so; without it, it is skipped as `payment_required`.
   */
  paid?: boolean
  /**
   * The secret of the inbound webhook that asked for the run: admission checks, on the row it
   * reads anyway, that it still opens this workflow (and that the workflow is not archived),
   * and answers 404 (`webhook`) otherwise. So the caller may find the workflow from a cache.
   */
  triggerSecret?: string
  /** A test run (of the draft, from the editor): marked on the run and left out of production views. */
  test?: boolean
}

/** A version as a run stored it: its number and the hash of the definition it executed (the workflow's draft may have changed since). */
export interface PinnedVersion {
  number: number
  definitionHash: string
}

/** The reason of a webhook run skipped because its workflow is paid (x402) and the run was not. */
export const PAYMENT_REQUIRED = 'payment_required'

/** What admission did: started a run, or skipped it (with the reason, and the earlier run of a duplicate). */
export type DispatchResult =
  | { action: 'triggered'; runId: string; eventId: string }
  /** Held by the workflow's debounce: `runId` is the key's one pending run (flowControl). */
  | { action: 'debounced'; runId: string; eventId: string }
  | { action: 'skipped'; reason: string; eventId: string; runId?: string }

/** Admits runs: the one front door of every way to start one. */
export interface Dispatcher {
  dispatch(request: DispatchRequest): Promise<DispatchResult>
  /** A new run of a failed or cancelled run's definition and event that reuses the nodes that succeeded. */
  retry(organizationId: string, runId: string): Promise<{ runId: string }>
}

/** Steers admitted runs from outside: cancels them and resumes their waiting nodes. */
export interface RunControl {
  /** Cancels a running or waiting run; resolves once the cancellation is durable. */
  cancel(organizationId: string, runId: string): Promise<RunStatus>
  /** Resumes a node waiting on `wait`/`approval` with data. */
  resume(organizationId: string, runId: string, nodeId: string, data: unknown): Promise<void>
}

/** Reads the engine's persisted run state as the run record's `nodes` and `vars`. */
export interface RunProjection {
  /** `triggerEvent`: the run row's, which the stored snapshot leaves out. */
  project(
    snapshot: string | null,
    definition: Definition,
    triggerEvent?: string | null,
  ): { nodes: Record<string, NodeRecord>; vars: Record<string, unknown> | null }
}

/** What checking a definition found: its trigger type, and its problems. */
export interface DefinitionCheck {
  /** The trigger type of the (first) trigger node, when there is one. */
  type: string | null
  errors: ErrorDetail[]
  /** What would not stop a save but likely resolves to nothing at run time (references to undeclared result fields). */
  warnings?: ErrorDetail[]
}

/** Checks definitions against the loaded plugins (the engine's registry). */
export interface DefinitionChecker {
  check(definition: Definition): DefinitionCheck
  /** Node types a definition uses that no loaded plugin provides. */
  missingTypes(definition: Definition): string[]
  /** The definition with each node that names no `typeVersion` given its type's latest version (as a save records it). */
  pinVersions(definition: Definition): Definition
}

/** One trigger event for one organization, as an integration webhook received it (or a replay). */
export interface RoutedEvent {
  organizationId: string
  /** The plugin whose webhook received it. */
  source: string
  /** The platform's id of the event: a second delivery of it is a duplicate. */
  providerEventId: string
  triggerType: string
  body: unknown
  headers: Record<string, string>
  /** The connector that verified the request or routed it here; trigger nodes naming another one do not match. */
  connectorId: string | null
  /** A workflow to start or a waiting run to resume, instead of matching. */
  target?: { workflowId?: string; runId?: string } | null
  /** The platform revoked the organization's connector: its workflows using the source's triggers pause (invalid_chat). */
  connectorRevoked?: boolean
  /** Set on replays: the stored event replayed. A replay is never a duplicate. */
  replayOf?: string
}

/** The outcome of routing an event; the specification's Webhook result object. */
export interface RoutedResult {
  action: 'triggered' | 'resumed' | 'skipped'
  eventId: string
  reason?: string
  runIds: string[]
}

/**
 * Routes events to the runs waiting for them and to the live workflows whose trigger matches,
 * storing each event with what it did; a provider event is processed once.
 */
export interface EventRouter {
  route(event: RoutedEvent): Promise<RoutedResult>
}

/** The admission backlog: runs admitted and not started yet, and its bounds (AUTOMATON_MAX_BACKLOG). */
export interface BacklogReport {
  total: number
  max: number
  perOrganizationMax: number
  /** Runs started per second over the last few seconds. */
  drainPerSecond: number
}

/** Records domain events in a store transaction (the engine's recorder: its listeners act in the same transaction). */
export interface DomainEventRecorder {
  record(tx: SqlExecutor, events: readonly DomainEvent[]): Promise<RecordedEvent[]>
}
