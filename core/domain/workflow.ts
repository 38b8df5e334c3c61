/**
 * The workflow resource: every field of the specification, its sub-objects, and the bodies of
 * the workflow endpoints. A workflow row is also a version record.
 */
import { type Static, type TOptional, type TSchema, Type as t } from '@sinclair/typebox'
import { MAX_INT32, Timestamp, TimestampOrEmpty } from './common.ts'
import { FlowControl } from './flow-control.ts'
import { RunRetention } from './retention.ts'

const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])

export const WORKFLOW_STATUSES = ['draft', 'active', 'paused', 'archived'] as const
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number]
export const VISIBILITIES = ['private', 'org', 'public_view', 'public_execute'] as const
export type Visibility = (typeof VISIBILITIES)[number]
export const PAUSED_REASONS = [
  'cu_exhausted',
  'disabled_action',
  'consecutive_failures',
  'max_runs_exhausted',
  'invalid_chat',
  'member_removed',
] as const
export type PausedReason = (typeof PAUSED_REASONS)[number]

const literals = <T extends readonly string[]>(values: T) => t.Union(values.map((v) => t.Literal(v)))

// --- the definition -------------------------------------------------------------------------

export const RetryPolicy = t.Object({
  maxAttempts: t.Integer({ minimum: 1, maximum: 10 }),
  backoffMs: t.Optional(t.Integer({ minimum: 0, maximum: 3_600_000, default: 1000 })),
})

export const NodeDefinition = t.Object({
  type: t.String({ minLength: 1, maxLength: 100 }),
  typeVersion: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: MAX_INT32,
      description: "The version of the node's type it was saved with; a saved draft records the latest when absent",
    }),
  ),
  payload: t.Optional(t.Record(t.String(), t.Any())),
  children: t.Optional(t.Array(t.String({ minLength: 1 }), { maxItems: 100 })),
  branch: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  connector: t.Optional(t.Object({ type: t.Optional(t.String()), id: t.Optional(t.String()) })),
  loopBody: t.Optional(t.Array(t.String({ minLength: 1 }), { maxItems: 100 })),
  description: t.Optional(t.String({ maxLength: 2000 })),
  titleOverride: t.Optional(t.String({ maxLength: 200 })),
  onError: t.Optional(t.Union([t.Literal('stop'), t.Literal('continue')])),
  retry: t.Optional(RetryPolicy),
  timeoutMs: t.Optional(t.Integer({ minimum: 1, maximum: 86_400_000 })),
})
export type NodeDefinition = Static<typeof NodeDefinition>

export const InputField = t.Object({
  key: t.String({ minLength: 1, maxLength: 100 }),
  type: literals(['string', 'number', 'boolean', 'object', 'array'] as const),
  description: t.Optional(t.String()),
  required: t.Optional(t.Boolean()),
})

/**
 * Names a user chooses that become object keys (node ids, variable names, prop keys): a checked
 * charset, and never a name that reaches an object's prototype.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])
export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
export const isNodeId = (id: string) => NODE_ID_PATTERN.test(id) && !PROTOTYPE_KEYS.has(id)
/** A key of user data (prop values, variables): not a prototype name. */
export const isSafeKey = (key: string) => !PROTOTYPE_KEYS.has(key)

export const VariableDef = t.Object({
  name: t.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_]*$',
  }),
  type: literals(['number', 'text', 'boolean', 'list', 'object'] as const),
  default: t.Optional(t.Any()),
  description: t.Optional(t.String()),
  lifetime: t.Optional(literals(['persist', 'reset'] as const)),
})
export type VariableDef = Static<typeof VariableDef>

export const Definition = t.Object(
  {
    nodes: t.Record(t.String({ minLength: 1, maxLength: 100 }), NodeDefinition),
    triggerNodeIds: t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: 50 })),
    inputSchema: t.Optional(t.Array(InputField)),
    variableDefs: t.Optional(t.Array(VariableDef)),
    sensitivePropKeys: t.Optional(t.Array(t.String())),
    blockExpansions: t.Optional(t.Record(t.String(), t.Any())),
  },
  { additionalProperties: true },
)
export type Definition = Static<typeof Definition>

// --- settings objects -------------------------------------------------------------------------

export const PublicWidgetConfig = t.Object({
  enabled: t.Optional(t.Boolean()),
  title: t.Optional(t.String()),
  description: t.Optional(t.String()),
  buttonLabel: t.Optional(t.String()),
  minAmount: t.Optional(t.String({ pattern: '^[0-9]+$' })),
  maxAmount: t.Optional(t.String({ pattern: '^[0-9]+$' })),
})

export const AutoSwapSource = t.Object({
  id: t.String(),
  chainId: t.Integer(),
  walletId: t.String(),
  tokenAddress: t.String({ description: '`native` means the native gas token' }),
  tokenDecimals: t.Integer({ minimum: 0, maximum: 255 }),
  priority: t.Integer(),
  slippageBps: t.Optional(t.Integer({ minimum: 0, maximum: 10_000, default: 300 })),
})

export const FundAutoSwapConfig = t.Object({
  enabled: t.Optional(t.Boolean()),
  maxSwapAmountUsd: t.Optional(t.Number({ minimum: 0 })),
  mode: t.Optional(t.String()),
  sources: t.Optional(t.Array(AutoSwapSource)),
})
export type FundAutoSwapConfig = Static<typeof FundAutoSwapConfig>

const Discovery = t.Object({ example: t.Optional(t.Any()), schema: t.Optional(t.Record(t.String(), t.Any())) })

export const X402Config = t.Object({
  chainId: t.Optional(t.Integer()),
  price: t.Optional(t.String({ pattern: '^[0-9]+$' })),
  token: t.Optional(t.String()),
  recipient: t.Optional(t.String()),
  discoverable: t.Optional(t.Boolean()),
  discoveryInput: t.Optional(Discovery),
  discoveryOutput: t.Optional(Discovery),
  discoveryMetadata: t.Optional(
    t.Object({
      name: t.Optional(t.String()),
      description: t.Optional(t.String()),
      category: t.Optional(t.String()),
      provider: t.Optional(t.String()),
      documentation: t.Optional(t.String()),
      logo: t.Optional(t.String()),
      tags: t.Optional(t.Array(t.String())),
    }),
  ),
  responseWaitMs: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: 60_000,
      description: "how long a paid call waits for the run's output (default 30,000; 0 answers at once)",
    }),
  ),
})

const Author = t.Object({ clientId: t.Optional(t.String()), name: t.Optional(t.String()) })
const Point = t.Object({ x: t.Number(), y: t.Number() })

export const Comment = t.Object({
  id: t.String(),
  nodeId: t.Optional(t.String()),
  text: t.String(),
  resolved: t.Optional(t.Boolean()),
  position: t.Optional(Point),
  createdBy: t.Optional(Author),
  createdAt: t.Optional(t.String()),
  updatedAt: t.Optional(t.String()),
  replies: t.Optional(
    t.Array(
      t.Object({
        id: t.String(),
        text: t.String(),
        createdAt: t.Optional(t.String()),
        updatedAt: t.Optional(t.String()),
        createdBy: t.Optional(Author),
      }),
    ),
  ),
})

export const StickyNote = t.Object({
  id: t.String(),
  text: t.String(),
  color: t.Optional(t.String()),
  position: t.Optional(Point),
  size: t.Optional(t.Object({ width: t.Number(), height: t.Number() })),
  zIndex: t.Optional(t.Integer()),
  createdBy: t.Optional(Author),
  createdAt: t.Optional(t.String()),
  updatedAt: t.Optional(t.String()),
})

export const UiMetadata = t.Object({
  comments: t.Optional(t.Array(Comment)),
  nodePositions: t.Optional(t.Record(t.String(), t.Any())),
  stickyNotes: t.Optional(t.Array(StickyNote)),
})

// --- the content a version holds ---------------------------------------------------------------

const contentFields = {
  name: t.String({ minLength: 1, maxLength: 200 }),
  description: t.String({ maxLength: 5000 }),
  aiName: t.String({ maxLength: 200 }),
  aiDescription: t.String({ maxLength: 5000 }),
  nameManuallySet: t.Boolean(),
  descManuallySet: t.Boolean(),
  conversationId: t.String({ maxLength: 100 }),
  visibility: literals(VISIBILITIES),
  cooldownMs: t.Integer({ minimum: 0 }),
  maxRuns: nullable(t.Integer({ minimum: 1 })),
  flowControl: nullable(FlowControl),
  publicRunCooldownSeconds: t.Integer({ minimum: 0 }),
  publicRunDailyLimit: nullable(t.Integer({ minimum: 1 })),
  publicWidgetConfig: nullable(PublicWidgetConfig),
  fundAutoSwapConfig: nullable(FundAutoSwapConfig),
  x402Config: nullable(X402Config),
  definition: Definition,
  variableDefs: t.Array(VariableDef),
  uiMetadata: UiMetadata,
  sourceTemplateId: nullable(t.String({ maxLength: 100 })),
  responseNodeId: t.String({
    maxLength: 100,
    description: 'the node whose result a caller that waits receives as `output` ("": the last node that finished)',
  }),
  runRetention: nullable(RunRetention),
  pinnedData: t.Record(t.String({ minLength: 1, maxLength: 100 }), t.Any(), {
    description:
      'Sample trigger payloads pinned while building, by trigger node id: test runs use them; live runs never do',
  }),
}

type ContentFields = typeof contentFields
export type WorkflowContent = { [K in keyof ContentFields]: Static<ContentFields[K]> }
export const CONTENT_KEYS = Object.keys(contentFields) as (keyof WorkflowContent)[]

const optionalAll = <T extends Record<string, TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, t.Optional(v)])) as { [K in keyof T]: TOptional<T[K]> }

export const CreateWorkflowBody = t.Object({
  ...optionalAll(contentFields),
  definition: Definition,
  ownerUserId: t.Optional(t.String({ maxLength: 64 })),
})
export type CreateWorkflowBody = Static<typeof CreateWorkflowBody>

export const UpdateWorkflowBody = t.Object(optionalAll(contentFields))
export type UpdateWorkflowBody = Static<typeof UpdateWorkflowBody>

export const Workflow = t.Object(
  {
    id: t.String(),
    ...contentFields,
    // Unset strings are "", never null (the specification's rule for every resource).
    sourceTemplateId: t.String({ description: 'the template it was made from; "" for none' }),
    organizationId: t.String(),
    ownerUserId: t.String(),
    createdAt: Timestamp,
    createdBy: t.String(),
    updatedAt: Timestamp,
    updatedBy: t.String(),
    versionCreatedBy: t.String({ description: 'author of this version row; set once' }),
    versionCreatedByName: t.Optional(
      t.String({ description: "the author's name: a person's, an API key's or a service account's" }),
    ),
    pinnedDataProblems: t.Optional(
      t.Array(t.Object({ path: t.String(), message: t.String() }), {
        description: 'pinned samples that no longer fit their trigger (removed, or its input schema changed)',
      }),
    ),
    version: t.Integer(),
    status: literals(WORKFLOW_STATUSES),
    type: t.String({ description: 'trigger type of the (first) trigger node' }),
    remainRuns: nullable(t.Integer()),
    lastTriggeredAt: TimestampOrEmpty,
    pausedReason: t.Union([literals(PAUSED_REASONS), t.Literal('')], { description: '"" unless paused' }),
    hasDraft: t.Boolean(),
    hasLiveVersion: t.Boolean(),
    liveVersionPaused: t.Boolean(),
    triggerSecret: t.String(),
  },
  { $id: 'Workflow' },
)
export type Workflow = Static<typeof Workflow>

export const WorkflowListQuery = {
  status: literals(WORKFLOW_STATUSES),
}

export const RefillBody = t.Object({ remainRuns: t.Integer({ minimum: 1, maximum: MAX_INT32 }) })
export const RollbackBody = t.Object({ version: t.Integer({ minimum: 1, maximum: MAX_INT32 }) })
export const OwnerBody = t.Object({ ownerUserId: t.String({ minLength: 1, maxLength: 64 }) })
export const VisibilityBody = t.Object({ visibility: literals(VISIBILITIES) })
export const UiMetadataBody = UiMetadata
export const ValidateBody = t.Object({ definition: t.Any() })
export const ValidationReport = t.Object({
  valid: t.Boolean(),
  type: t.String({ description: 'the trigger type of the definition; "" when its shape is invalid' }),
  errors: t.Array(t.Object({ path: t.String(), message: t.String() })),
  warnings: t.Array(t.Object({ path: t.String(), message: t.String() }), {
    description: 'what would not stop a save but likely resolves to nothing at run time (expression references)',
  }),
})

/** Defaults for content a create request leaves out. */
export function defaultContent(definition: Definition): WorkflowContent {
  return {
    name: 'Untitled workflow',
    description: '',
    aiName: '',
    aiDescription: '',
    nameManuallySet: false,
    descManuallySet: false,
    conversationId: '',
    visibility: 'private',
    cooldownMs: 0,
    maxRuns: null,
    flowControl: null,
    publicRunCooldownSeconds: 0,
    publicRunDailyLimit: null,
    publicWidgetConfig: null,
    fundAutoSwapConfig: null,
    x402Config: null,
    definition,
    variableDefs: [],
    uiMetadata: { comments: [], nodePositions: {}, stickyNotes: [] },
    sourceTemplateId: null,
    responseNodeId: '',
    runRetention: null,
    pinnedData: {},
  }
}

/** Fills `slippageBps` (default 300) on every auto-swap source. */
export function normalizeContent(content: WorkflowContent): WorkflowContent {
  const swap = content.fundAutoSwapConfig
  if (!swap?.sources) return content
  return {
    ...content,
    fundAutoSwapConfig: { ...swap, sources: swap.sources.map((s) => ({ ...s, slippageBps: s.slippageBps ?? 300 })) },
  }
}
