/**
 * Executes one node: resolves its payload (expressions, defaults, schema check), builds the
 * action context, calls the plugin's handler with an AbortSignal and the node's timeout, and
 * turns what it returns (a result or a directive) into an Outcome. A throwing handler fails
 * its node, never the process. Also resumes waiting nodes through `resume`/`timeout`.
 */
import { Value } from '@sinclair/typebox/value'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import '../../core/plugin/formats.ts'
import type { TObject } from '@sinclair/typebox'
import type { OpenedConnector } from '../../core/domain/connector.ts'
import { ConnectorUnavailableError, StoreUnavailableError } from '../../core/errors.ts'
import { type Clock, sleepOn } from '../../core/ports/clock.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { ActionContext, ConnectorData, ResumeContext, WaitRequest } from '../../core/plugin/sdk.ts'
import type { AnyAction, Registry } from '../../core/plugin/registry.ts'
import { resolveValue } from '../expressions/index.ts'
import { createRedactor, type Redactor } from './redact.ts'
import type { Capabilities } from './capabilities.ts'
import { isPending } from './machine.ts'
import type { NodeRunner, Outcome, PendingOutcome, ResumeTask } from './types.ts'
import type { Plan } from './plan.ts'
import { scopeLookup } from './scope.ts'
import {
  actionContext,
  type ActionContextParts,
  idempotencyKeyOf,
  isDirective,
  makeDirective,
} from './action-context.ts'
import { AiUnavailableError, CreditsExhaustedError } from '../../core/services/ai.ts'
import type { SecretProps } from '../../core/services/secret-props.ts'
import type { RunState } from './state.ts'
import { errorMessage } from '../../core/errors.ts'
import { noMask, type SecretMasks, type ValueMask } from '../../core/security/value-mask.ts'
import { nestsDeeperThan } from '../../core/json.ts'

/**
 * An outcome nested deeper than this fails its node: a run keeps its nodes' results as JSON, and
 * a value nested deep enough cannot be written (or read back) without overflowing the stack.
 */
export const MAX_OUTCOME_DEPTH = 1000

export class NodeTimeoutError extends Error {
  override name = 'NodeTimeoutError'
}

const NO_PROPS: Readonly<Record<string, unknown>> = Object.freeze({})

/** Pauses between two reads while the store is unreachable: from a tenth of a second to two seconds. */
const OUTAGE_PAUSES_MS = [100, 200, 500, 1000, 2000]

interface Secrets {
  readonly mask: ValueMask
  readonly props: Readonly<Record<string, unknown>>
}

/** The state a node's expressions see: the run's props with the workflow's sensitive ones. */
function withProps(state: RunState, secret: Readonly<Record<string, unknown>>): RunState {
  for (const _ in secret) return { ...state, props: { ...state.props, ...secret } }
  return state
}

export function createNodeRunner(deps: {
  registry: Registry
  clock: Clock
  capabilities: Capabilities
  logger: Logger
  /** The organization's secret values, masked in every outcome (input, result, error, logs, variables, wait). */
  masks?: SecretMasks
  /** The sensitive prop values of forked workflows, read by `{{$props.key}}` but never kept in a run. */
  secretProps?: SecretProps
}): NodeRunner {
  const now = () => deps.clock.now()

  /**
   * What the engine reads for a node before its handler runs (the organization's masks, the
   * workflow's sensitive props, a connector), and the masks for a resumed node's outcome, wait
   * while the store cannot be reached: the node has not done anything, and failing it would fail
   * its run, and count towards pausing its workflow, for an outage. Until the node is aborted.
   */
  async function outlastingOutages<T>(read: () => T | Promise<T>, signal: () => AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await read()
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error
        await sleepOn(deps.clock, OUTAGE_PAUSES_MS[Math.min(attempt, OUTAGE_PAUSES_MS.length - 1)], signal())
      }
    }
  }

  /** What a payload check needs of an action, worked out once per action type. */
  interface PayloadRules {
    readonly check: TypeCheck<TObject>
    readonly keep: ReadonlySet<string>
    /** Whether the schema declares any default; if not, filling defaults is a no-op to skip. */
    readonly defaults: boolean
  }
  const rules = new Map<string, PayloadRules>()
  const rulesFor = (action: AnyAction) => {
    let found = rules.get(action.type)
    if (!found) {
      found = {
        check: TypeCompiler.Compile(action.payload),
        keep: new Set(action.raw ?? []),
        defaults: declaresDefault(action.payload),
      }
      rules.set(action.type, found)
    }
    return found
  }

  function resolvePayload(action: AnyAction, raw: Record<string, unknown>, lookup: ReturnType<typeof scopeLookup>) {
    const { check, keep, defaults } = rulesFor(action)
    const resolved: Record<string, unknown> = {}
    for (const k in raw) if (Object.hasOwn(raw, k)) resolved[k] = keep.has(k) ? raw[k] : resolveValue(raw[k], lookup)
    const withDefaults = defaults ? (Value.Default(action.payload, resolved) as Record<string, unknown>) : resolved
    if (!check.Check(withDefaults)) {
      const problems = [...check.Errors(withDefaults)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`)
      throw new Error(`the payload does not match the action's schema (${problems.join('; ')})`)
    }
    return withDefaults
  }

  /**
   * Executes the current node. A handler that answers synchronously (most built-in actions do)
   * gives its outcome at once, so the run machine executes a chain of such nodes in one
   * transition; whatever has to wait (a retry delay, opening a connector, a handler returning
   * a promise) comes back pending, for the machine to await in an invoked actor.
   */
  function execute(plan: Plan, state: RunState): Outcome | PendingOutcome {
    const controller = lazyController()
    const secrets = secretsOf(state.organizationId, state.workflowId)
    if (!isThenable(secrets))
      return masked(secrets.mask, executeWith(plan, withProps(state, secrets.props), controller, secrets.mask))
    // The organization's mask (or the workflow's sensitive props) is not at hand: read it first,
    // so that nothing leaves unmasked.
    let first: typeof secrets | null = secrets
    const read = outlastingOutages(
      () => {
        const reading = first ?? secretsOf(state.organizationId, state.workflowId)
        first = null
        return reading
      },
      () => controller.signal,
    )
    return pendingOf(
      controller,
      read.then(({ mask, props }) =>
        outcomeOf(masked(mask, executeWith(plan, withProps(state, props), controller, mask))),
      ),
    )
  }

  /** The organization's mask and the workflow's sensitive props: at hand, or once read. */
  function secretsOf(organizationId: string, workflowId: string): Secrets | Promise<Secrets> {
    const mask = deps.masks ? deps.masks.peek(organizationId) : noMask
    const props = deps.secretProps ? deps.secretProps.peek(workflowId) : NO_PROPS
    if (mask && props) return { mask, props }
    return Promise.all([mask ?? deps.masks!.of(organizationId), props ?? deps.secretProps!.of(workflowId)]).then(
      ([mask, props]) => ({ mask, props }),
    )
  }

  function executeWith(plan: Plan, state: RunState, controller: Controller, mask: ValueMask): Outcome | PendingOutcome {
    const delay = state.current!.frame.retryDelayMs
    if (!delay) return start(plan, state, controller, mask)
    return pendingOf(
      controller,
      sleepOn(deps.clock, delay, controller.signal).then(() => outcomeOf(start(plan, state, controller, mask))),
    )
  }

  function start(plan: Plan, state: RunState, controller: Controller, mask: ValueMask): Outcome | PendingOutcome {
    const node = plan.node(state.current!.frame.nodeId)
    const action = deps.registry.action(node.type)
    if (!action) {
      return {
        kind: 'failure',
        error: `the action "${node.type}" is not available: no loaded plugin provides it`,
        code: 'disabled_action',
        retryable: false,
      }
    }
    let payload: Record<string, unknown>
    try {
      payload = resolvePayload(action, node.def.payload ?? {}, scopeLookup(plan, state, state.current!.frame.scope))
    } catch (error) {
      return { kind: 'failure', error: errorMessage(error), code: 'invalid_payload', retryable: false }
    }
    if (!action.connector) return invoke(plan, state, action, payload, controller, null, mask)
    const opening = outlastingOutages(
      () => deps.capabilities.connector(state.organizationId, node.def.connector, action.connector!.type),
      () => controller.signal,
    )
    return pendingOf(
      controller,
      opening.then(
        (opened) => outcomeOf(invoke(plan, state, action, payload, controller, opened, mask)),
        (error) => failed(error, payload, (value) => value, []),
      ),
    )
  }

  /** Calls the handler; its outcome, or the pending outcome of the promise it returned. */
  function invoke(
    plan: Plan,
    state: RunState,
    action: AnyAction,
    payload: Record<string, unknown>,
    controller: Controller,
    opened: OpenedConnector | null,
    mask: ValueMask,
  ): Outcome | PendingOutcome {
    const current = state.current!
    const frame = current.frame
    const node = plan.node(frame.nodeId)
    const instance = state.nodes[current.key]
    const varUpdates: Record<string, unknown> = {}
    let varsSet = false
    const logs: string[] = []
    const redact: Redactor = opened ? createRedactor(opened.secrets) : (value) => value
    const parts: ActionContextParts<Record<string, unknown>, ConnectorData> = {
      payload,
      run: {
        id: state.runId,
        workflowId: state.workflowId,
        workflowVersion: state.workflowVersion,
        organizationId: state.organizationId,
      },
      node: { id: node.id, key: current.key, attempt: instance.attempts },
      signal: () => controller.signal,
      connector: opened?.data ?? null,
      log: (message, fields) => {
        const [text, extra] = mask(redact([message, fields] as const))
        if (logs.length < 100) logs.push(extra ? `${text} ${JSON.stringify(extra)}` : text)
        deps.capabilities.log(state, node.id, text, extra)
      },
      now,
      http: { send: (request) => deps.capabilities.http(request, controller.signal, state) },
      lookup: (extra) => scopeLookup(plan, state, frame.scope, extra),
      vars: {
        get: (name) => (Object.hasOwn(varUpdates, name) ? varUpdates[name] : state.vars[name]),
        set: (name, value) => {
          varUpdates[name] = value
          varsSet = true
        },
      },
      services: {
        runCode: (code, input) => deps.capabilities.runCode(code, input, controller.signal),
        triggerWorkflow: (workflowId, input) => deps.capabilities.triggerWorkflow(state, workflowId, input),
        prompt: (request) => deps.capabilities.prompt(state, request, controller.signal),
        x402Request: (request) =>
          deps.capabilities.x402Request(
            state,
            request,
            controller.signal,
            idempotencyKeyOf(state.runId, current.key, instance.attempts),
          ),
        modelTurn: (request) => deps.capabilities.modelTurn(state, request, controller.signal),
        api: (request) => deps.capabilities.api(state, request),
        runTool: async (type, args) => {
          const tool = deps.registry.action(type)
          if (!tool || tool.connector)
            throw new Error(`there is no tool "${type}": tools are actions without a connector`)
          const { check } = rulesFor(tool)
          const toolPayload = Value.Default(tool.payload, structuredClone(args ?? {})) as Record<string, unknown>
          if (!check.Check(toolPayload)) {
            const problems = [...check.Errors(toolPayload)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`)
            throw new Error(`the arguments do not fit tool "${type}" (${problems.join('; ')})`)
          }
          const output = await tool.run(
            actionContext({
              ...parts,
              payload: toolPayload,
              node: { ...parts.node, key: `${parts.node.key}/${type}` },
            }),
          )
          if (isDirective(output)) throw new Error(`tool "${type}" waits or branches, which a tool cannot`)
          return output
        },
      },
    }
    const ctx: ActionContext<Record<string, unknown>> = actionContext(parts)
    const succeeded = (output: unknown): Outcome => {
      const outcome = toOutcome(output, payload, deps.clock.now())
      // Without a connector there is no secret to mask: the outcome is used as it is.
      const masked = opened ? redactOutcome(redact, outcome) : outcome
      if (masked.kind !== 'success' || (!varsSet && logs.length === 0)) return masked
      return { ...masked, ...(varsSet ? { vars: redact(varUpdates) } : {}), ...(logs.length ? { logs } : {}) }
    }
    try {
      const output = action.run(ctx)
      if (!isThenable(output)) return succeeded(output)
      return pendingOf(
        controller,
        withTimeout(deps.clock, Promise.resolve(output), node.def.timeoutMs, controller).then(succeeded, (error) =>
          failed(error, payload, redact, logs),
        ),
      )
    } catch (error) {
      return failed(error, payload, redact, logs)
    }
  }

  function failed(error: unknown, payload: Record<string, unknown>, redact: Redactor, logs: string[]): Outcome {
    if (error instanceof ConnectorUnavailableError)
      return {
        kind: 'failure',
        error: error.message,
        code: 'connector_unavailable',
        retryable: false,
        input: payload,
        logs,
      }
    // Without credits (or without a model) a retry cannot succeed; cu_exhausted pauses the live version.
    if (error instanceof CreditsExhaustedError)
      return { kind: 'failure', error: error.message, code: 'cu_exhausted', retryable: false, input: payload, logs }
    if (error instanceof AiUnavailableError)
      return { kind: 'failure', error: error.message, code: 'ai_unavailable', retryable: false, input: payload, logs }
    const timedOut = error instanceof NodeTimeoutError
    return {
      kind: 'failure',
      error: redact(errorMessage(error)),
      code: timedOut ? 'timeout' : undefined,
      retryable: true,
      input: payload,
      logs,
    }
  }

  async function resume(plan: Plan, task: ResumeTask, signal: AbortSignal): Promise<Outcome> {
    const outcome = bounded(await resumeUnmasked(plan, task, signal))
    return deps.masks
      ? (
          await outlastingOutages(
            () => deps.masks!.of(task.state.organizationId),
            () => signal,
          )
        )(outcome)
      : outcome
  }

  async function resumeUnmasked(plan: Plan, task: ResumeTask, signal: AbortSignal): Promise<Outcome> {
    const { state, event } = task
    const instance = state.nodes[event.key]
    const node = plan.node(instance.nodeId)
    const action = deps.registry.action(node.type)
    if (!action)
      return {
        kind: 'failure',
        error: `the action "${node.type}" is not available: no loaded plugin provides it`,
        code: 'disabled_action',
        retryable: false,
      }
    const payload = (instance.input ?? {}) as Record<string, unknown>
    const wait = instance.wait ?? { startedAt: deps.clock.now(), kind: 'waiting' as const }
    const ctx: ResumeContext<Record<string, unknown>> = {
      payload,
      run: {
        id: state.runId,
        workflowId: state.workflowId,
        workflowVersion: state.workflowVersion,
        organizationId: state.organizationId,
      },
      node: { id: node.id, key: event.key },
      wait,
      now: () => deps.clock.now(),
      branch: (branch, result) => makeDirective('branch', branch, result),
    }
    try {
      if (signal.aborted) throw signal.reason
      let output: unknown
      if (event.type === 'TIMER' && event.kind === 'timeout') {
        if (!action.timeout)
          return {
            kind: 'failure',
            error: `timed out after ${wait.timeoutMs} ms of waiting`,
            code: 'timeout',
            retryable: false,
          }
        output = await action.timeout(ctx)
      } else {
        const data = event.type === 'RESUME' ? event.data : { firedAt: new Date(deps.clock.now()).toISOString() }
        output = action.resume ? await action.resume(ctx, data) : data
      }
      return toOutcome(output, payload, deps.clock.now())
    } catch (error) {
      return { kind: 'failure', error: errorMessage(error), retryable: false }
    }
  }

  function ready(organizationId: string, workflowId: string): Promise<unknown> | undefined {
    const secrets = secretsOf(organizationId, workflowId)
    return isThenable(secrets) ? secrets : undefined
  }

  return { execute, resume, ready }
}

/** Masks secrets in everything an outcome carries except the node's input (its resolved payload). */
function redactOutcome(redact: Redactor, outcome: Outcome): Outcome {
  const { input, ...rest } = outcome
  return { ...redact(rest), input } as Outcome
}

/** Turns what a handler returned (a result or a directive) into an outcome. */
export function toOutcome(output: unknown, input: unknown, now: number): Outcome {
  if (!isDirective(output)) return { kind: 'success', result: output ?? null, input }
  const d = output as unknown as {
    kind: string
    branch?: string
    result?: unknown
    wait?: WaitRequest
    items?: readonly unknown[]
  }
  switch (d.kind) {
    case 'branch':
      return { kind: 'success', result: d.result ?? null, branch: d.branch, input }
    case 'loop':
      return Array.isArray(d.items)
        ? { kind: 'loop', items: d.items, input }
        : { kind: 'failure', error: 'loop items must be an array', retryable: false, input }
    default: {
      const wait = { ...d.wait! }
      if (wait.until === undefined && wait.timeoutMs === undefined && !wait.triggerType) {
        return { kind: 'failure', error: 'a wait needs a time, a timeout or a trigger type', retryable: false, input }
      }
      if (wait.until !== undefined && wait.until < now) wait.until = now
      return { kind: 'wait', wait, input }
    }
  }
}

type Controller = Pick<AbortController, 'signal' | 'abort'>

/**
 * A node's abort controller, made when something first asks for its signal or aborts it:
 * most handlers answer synchronously and never look, and an AbortController with its signal
 * is one of the larger allocations of a node execution.
 */
function lazyController(): Controller {
  let controller: AbortController | undefined
  return {
    get signal() {
      return (controller ??= new AbortController()).signal
    },
    abort(reason?: unknown) {
      ;(controller ??= new AbortController()).abort(reason)
    },
  }
}

const pendingOf = (controller: Controller, pending: Promise<Outcome>): PendingOutcome => ({
  pending,
  abort: (reason) => controller.abort(reason),
})

/** The outcome bounded in depth and with the organization's secret values masked (pending or not). */
function masked(mask: ValueMask, result: Outcome | PendingOutcome): Outcome | PendingOutcome {
  const finish = (outcome: Outcome) => mask(bounded(outcome))
  if (isPending(result)) return { pending: result.pending.then(finish), abort: (reason) => result.abort(reason) }
  return finish(result)
}

/** A failure instead of an outcome too deep to keep. */
function bounded(outcome: Outcome): Outcome {
  if (!nestsDeeperThan(outcome, MAX_OUTCOME_DEPTH)) return outcome
  return {
    kind: 'failure',
    error: `the node's result nests arrays and objects deeper than ${MAX_OUTCOME_DEPTH} levels`,
    code: 'result_too_deep',
    retryable: false,
  }
}

const outcomeOf = (result: Outcome | PendingOutcome): Outcome | Promise<Outcome> =>
  isPending(result) ? result.pending : result

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  !!value &&
  (typeof value === 'object' || typeof value === 'function') &&
  typeof (value as { then?: unknown }).then === 'function'

/** The work, or a NodeTimeoutError once `timeoutMs` of the clock's time passed first. */
function withTimeout<T>(
  clock: Clock,
  work: Promise<T>,
  timeoutMs: number | undefined,
  controller: Controller,
): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason)
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason ?? new Error('aborted')), {
      once: true,
    })
  })
  aborted.catch(() => {})
  if (!timeoutMs) return Promise.race([work, aborted])
  const timer = new AbortController()
  sleepOn(clock, timeoutMs, timer.signal).then(
    () => controller.abort(new NodeTimeoutError(`the node timed out after ${timeoutMs} ms`)),
    () => {},
  )
  return Promise.race([work, aborted]).finally(() => timer.abort())
}

/** Whether a schema, or any schema inside it, has a `default` (a value or a function). */
function declaresDefault(schema: unknown, seen = new Set<unknown>()): boolean {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return false
  seen.add(schema)
  if (!Array.isArray(schema) && Object.hasOwn(schema, 'default')) return true
  return Object.values(schema).some((value) => declaresDefault(value, seen))
}
