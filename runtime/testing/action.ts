/**
 * Runs an action handler in isolation, the way the node runner does: the payload's expressions
 * are resolved (against the roots you give), defaults applied and the schema checked; the
 * context is complete (HTTP through a fake you pass, variables, logs, directives); a throwing
 * handler becomes a failure outcome; connector secrets are masked in what the node leaves behind.
 */
import { Value } from '@sinclair/typebox/value'
// The same string formats (date-time, email, uri …) as the server.
import '../../core/plugin/formats.ts'
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type {
  ActionContext,
  ActionDefinition,
  Awaitable,
  ConnectorData,
  HttpRequest,
  HttpResponse,
  ResumeContext,
  RunInfo,
  WaitRequest,
} from '../../core/plugin/sdk.ts'
import { secretFieldsOf } from '../../core/plugin/schemas.ts'
import { resolveValue } from '../expressions/index.ts'
import { toOutcome } from '../engine/node-runner.ts'
import { actionContext, makeDirective } from '../engine/action-context.ts'
import { createRedactor } from '../engine/redact.ts'
import type { Outcome } from '../engine/types.ts'
import { errorMessage } from '../../core/errors.ts'

export type FakeHttp = (request: HttpRequest) => Awaitable<Partial<HttpResponse> | Response>

export interface RunActionOptions<K = ConnectorData> {
  /** The node's payload as written in a definition; expressions resolve against `scope`. */
  payload?: Record<string, unknown>
  /** The connector data the node would get (required when the action needs a connector). */
  connector?: K | null
  /** Expression roots: `{ root: { result: { body: … } }, fetch: { result: … }, $item: … }`. */
  scope?: Record<string, unknown>
  /** The run's variables (`{{$vars.x}}`, `ctx.vars.get`). */
  vars?: Record<string, unknown>
  /** Answers the handler's HTTP requests; without it, any request fails the node. */
  http?: FakeHttp
  /** The clock, in milliseconds since the epoch (default: now). */
  now?: number
  run?: Partial<RunInfo>
  node?: Partial<{ id: string; key: string; attempt: number }>
  services?: Partial<ActionContext<unknown>['services']>
  signal?: AbortSignal
}

interface Traces {
  /** The resolved payload the handler saw (absent when it did not validate). */
  payload?: Record<string, unknown>
  logs: string[]
  /** Variables the handler set. */
  vars: Record<string, unknown>
  /** HTTP requests the handler sent, in order. */
  requests: HttpRequest[]
}

/** What a handler did: a result, a branch, a wait, a loop, or a failure (it threw, or the payload was invalid). */
export type ActionOutcome<R = unknown> = Traces &
  (
    | { kind: 'result'; result: R }
    | { kind: 'branch'; branch: string; result: R }
    | { kind: 'wait'; wait: WaitRequest }
    | { kind: 'loop'; items: unknown[] }
    | { kind: 'failure'; error: string; code?: string }
  )

const RUN: RunInfo = { id: 'run_test', workflowId: 'wf_test', workflowVersion: 1, organizationId: 'org_test' }

function toActionOutcome<R>(outcome: Outcome, traces: Traces): ActionOutcome<R> {
  switch (outcome.kind) {
    case 'success':
      return outcome.branch !== undefined
        ? { ...traces, kind: 'branch', branch: outcome.branch, result: outcome.result as R }
        : { ...traces, kind: 'result', result: outcome.result as R }
    case 'wait':
      return { ...traces, kind: 'wait', wait: outcome.wait }
    case 'loop':
      return { ...traces, kind: 'loop', items: [...outcome.items] }
    default:
      return { ...traces, kind: 'failure', error: outcome.error, code: outcome.code }
  }
}

export async function fakeResponse(answer: Partial<HttpResponse> | Response): Promise<HttpResponse> {
  if (answer instanceof Response) {
    return {
      status: answer.status,
      headers: Object.fromEntries(answer.headers),
      body: await answer.text(),
      truncated: false,
      durationMs: 0,
    }
  }
  return { status: 200, headers: {}, body: '', truncated: false, durationMs: 0, ...answer }
}

/**
 * Runs `action.run` once.
 *
 * @example
 * ```ts
 * const out = await runAction(greet, { payload: { name: '{{root.result.body.name}}' }, scope: { root: { result: { body: { name: 'Ada' } } } } })
 * expect(out).toMatchObject({ kind: 'result', result: { greeting: 'hello Ada' } })
 * ```
 */
export async function runAction<P extends TObject, R extends TSchema, K>(
  action: ActionDefinition<P, R, K>,
  options: RunActionOptions<K> = {},
): Promise<ActionOutcome<Static<R>>> {
  const traces: Traces = { logs: [], vars: {}, requests: [] }
  const now = options.now ?? Date.now()
  const vars = { ...(options.vars ?? {}) }
  const run = { ...RUN, ...options.run }
  const lookup =
    (extra?: Record<string, unknown>) =>
    (root: string): unknown => {
      if (extra && Object.hasOwn(extra, root)) return extra[root]
      if (options.scope && Object.hasOwn(options.scope, root)) return options.scope[root]
      if (root === '$vars') return vars
      if (root === '$run') return { id: run.id }
      if (root === '$workflow')
        return { id: run.workflowId, version: run.workflowVersion, organizationId: run.organizationId }
      if (root === '$trigger') return (options.scope?.root as { result?: unknown } | undefined)?.result
      return undefined
    }
  const keep = new Set(action.raw ?? [])
  const resolved: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(options.payload ?? {})) resolved[k] = keep.has(k) ? v : resolveValue(v, lookup())
  const payload = Value.Default(action.payload, resolved) as Record<string, unknown>
  if (!Value.Check(action.payload, payload)) {
    const problems = [...Value.Errors(action.payload, payload)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`)
    return toActionOutcome(
      {
        kind: 'failure',
        error: `the payload does not match the action's schema (${problems.join('; ')})`,
        code: 'invalid_payload',
      },
      traces,
    )
  }
  traces.payload = payload
  const requirement = action.connector as { type: string; data?: TObject; optional?: boolean } | null | undefined
  const connector = options.connector ?? null
  if (requirement && !requirement.optional && !connector)
    return toActionOutcome(
      { kind: 'failure', error: `this node needs a ${requirement.type} connector: pass options.connector` },
      traces,
    )
  if (requirement?.data && !Value.Check(requirement.data, connector)) {
    return toActionOutcome(
      { kind: 'failure', error: `options.connector does not match the ${requirement.type} connector's data schema` },
      traces,
    )
  }
  const secrets = requirement?.data
    ? secretFieldsOf(requirement.data)
        .map((f) => (connector as Record<string, unknown>)[f])
        .filter((v): v is string => typeof v === 'string')
    : []
  const redact = createRedactor(secrets)
  const node = { id: 'node', key: options.node?.id ?? 'node', attempt: 1, ...options.node }
  const signal = options.signal ?? new AbortController().signal
  const ctx: ActionContext<Static<P>, K> = actionContext<Static<P>, K>({
    payload: payload as Static<P>,
    run,
    node,
    signal: () => signal,
    connector: connector as K | null,
    log: (message, fields) => void traces.logs.push(redact(fields ? `${message} ${JSON.stringify(fields)}` : message)),
    now: () => now,
    http: {
      async send(request) {
        traces.requests.push(request)
        if (!options.http)
          throw new Error(`no HTTP in this test: pass options.http to answer ${request.method} ${request.url}`)
        return fakeResponse(await options.http(request))
      },
    },
    lookup,
    vars: {
      get: (name) => (Object.hasOwn(traces.vars, name) ? traces.vars[name] : vars[name]),
      set: (name, value) => void (traces.vars[name] = value),
    },
    services: {
      runCode: async () => {
        throw new Error('no code sandbox in this test: pass options.services.runCode')
      },
      triggerWorkflow: async () => {
        throw new Error('no workflows in this test: pass options.services.triggerWorkflow')
      },
      prompt: async () => {
        throw new Error('no AI model in this test: pass options.services.prompt')
      },
      x402Request: async () => {
        throw new Error('no x402 endpoints in this test: pass options.services.x402Request')
      },
      modelTurn: async () => {
        throw new Error('no AI model in this test: pass options.services.modelTurn')
      },
      runTool: async () => {
        throw new Error('no tools in this test: pass options.services.runTool')
      },
      api: async () => {
        throw new Error('no worker session in this test: pass options.services.api')
      },
      ...options.services,
    },
  })
  try {
    const { input: _, ...outcome } = toOutcome(await action.run(ctx), payload, now)
    // As in the engine: what the node leaves behind is masked; what it sent (requests) is not recorded there.
    return toActionOutcome<Static<R>>(redact(outcome as Outcome), { ...traces, vars: redact(traces.vars) })
  } catch (error) {
    return toActionOutcome({ kind: 'failure', error: redact(errorMessage(error)) }, traces)
  }
}

export interface ResumeActionOptions {
  /** The resolved payload the node ran with. */
  payload?: Record<string, unknown>
  /** The wait it asked for (as `runAction` returned it). */
  wait?: WaitRequest
  /** The data it resumes with (the event, or `POST …/resume` `{ data }`). */
  data?: unknown
  /** Resume because the wait timed out, instead of with data. */
  timedOut?: boolean
  now?: number
  run?: Partial<RunInfo>
}

/**
 * Resumes a waiting action as the engine does: `timeout(ctx)` when it timed out (a failure
 * when the action has none), else `resume(ctx, data)` (default: the data is the result).
 */
export async function resumeAction<P extends TObject, R extends TSchema, K>(
  action: ActionDefinition<P, R, K>,
  options: ResumeActionOptions = {},
): Promise<ActionOutcome<Static<R>>> {
  const traces: Traces = { payload: options.payload ?? {}, logs: [], vars: {}, requests: [] }
  const now = options.now ?? Date.now()
  const wait = { ...(options.wait ?? {}), startedAt: now }
  const ctx: ResumeContext<Static<P>> = {
    payload: (options.payload ?? {}) as Static<P>,
    run: { ...RUN, ...options.run },
    node: { id: 'node', key: 'node' },
    wait,
    now: () => now,
    branch: (branch, result) => makeDirective('branch', branch, result),
  }
  try {
    if (options.timedOut) {
      if (!action.timeout)
        return toActionOutcome(
          { kind: 'failure', error: `timed out after ${wait.timeoutMs} ms of waiting`, code: 'timeout' },
          traces,
        )
      return toActionOutcome(toOutcome(await action.timeout(ctx), options.payload, now), traces)
    }
    const output = action.resume ? await action.resume(ctx, options.data) : options.data
    return toActionOutcome(toOutcome(output, options.payload, now), traces)
  } catch (error) {
    return toActionOutcome({ kind: 'failure', error: errorMessage(error) }, traces)
  }
}
