/**
 * Calls a node's handler: builds its action context (run, node, signal, connector, logs,
 * variables, services and tools), and turns what it returns or throws into an outcome, with
 * its logs and variables, its connector's secrets redacted, and its timeout for a promise.
 */
import type { OpenedConnector } from '../../core/domain/connector.ts'
import type { ActionContext, ConnectorData } from '../../core/plugin/sdk.ts'
import type { AnyAction } from '../../core/plugin/registry.ts'
import type { ValueMask } from '../../core/security/value-mask.ts'
import { actionContext, type ActionContextParts, idempotencyKeyOf, isDirective } from './action-context.ts'
import { type Controller, withTimeout } from './node-abort.ts'
import type { NodeKit } from './node-kit.ts'
import { failureOf, isThenable, pendingOf, redactOutcome, toOutcome } from './node-outcome.ts'
import { toolPayload } from './node-payload.ts'
import type { Plan } from './plan.ts'
import { createRedactor, type Redactor } from './redact.ts'
import { scopeLookup } from './scope.ts'
import type { RunState } from './state.ts'
import type { Outcome, PendingOutcome } from './types.ts'
import { renewingSend } from './oauth2-renewal.ts'

type Parts = ActionContextParts<Record<string, unknown>, ConnectorData>

/** Calls the handler; its outcome, or the pending outcome of the promise it returned. */
export function invoke(
  kit: NodeKit,
  plan: Plan,
  state: RunState,
  action: AnyAction,
  payload: Record<string, unknown>,
  controller: Controller,
  opened: OpenedConnector | null,
  mask: ValueMask,
): Outcome | PendingOutcome {
  const { deps } = kit
  const current = state.current!
  const frame = current.frame
  const node = plan.node(frame.nodeId)
  const instance = state.nodes[current.key]
  const varUpdates: Record<string, unknown> = {}
  let varsSet = false
  const logs: string[] = []
  const redact: Redactor = opened ? createRedactor(opened.secrets) : (value) => value
  const parts: Parts = {
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
    now: kit.now,
    http: { send: renewingSend(opened, (request) => deps.capabilities.http(request, controller.signal, state)) },
    lookup: (extra) => scopeLookup(plan, state, frame.scope, extra),
    vars: {
      get: (name) => (Object.hasOwn(varUpdates, name) ? varUpdates[name] : state.vars[name]),
      set: (name, value) => {
        varUpdates[name] = value
        varsSet = true
      },
    },
    services: servicesOf(kit, state, controller, current.key, instance.attempts, (type, args) =>
      runTool(kit, parts, type, args),
    ),
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
        failureOf(error, payload, redact, logs),
      ),
    )
  } catch (error) {
    return failureOf(error, payload, redact, logs)
  }
}

/** The engine's services a handler reaches through its context, on behalf of the run. */
function servicesOf(
  kit: NodeKit,
  state: RunState,
  controller: Controller,
  key: string,
  attempt: number,
  runTool: Parts['services']['runTool'],
): Parts['services'] {
  const { capabilities } = kit.deps
  return {
    runCode: (code, input) => capabilities.runCode(code, input, controller.signal),
    triggerWorkflow: (workflowId, input) => capabilities.triggerWorkflow(state, workflowId, input),
    prompt: (request) => capabilities.prompt(state, request, controller.signal),
    x402Request: (request) =>
      capabilities.x402Request(state, request, controller.signal, idempotencyKeyOf(state.runId, key, attempt)),
    modelTurn: (request) => capabilities.modelTurn(state, request, controller.signal),
    api: (request) => capabilities.api(state, request),
    runTool,
  }
}

/** Calls an action without a connector as a tool of the node, with the node's context. */
async function runTool(kit: NodeKit, parts: Parts, type: string, args: Record<string, unknown>): Promise<unknown> {
  const tool = kit.deps.registry.action(type)
  if (!tool || (tool.connector && !tool.connector.optional))
    throw new Error(`there is no tool "${type}": tools are actions without a connector`)
  const payload = toolPayload(kit.rulesFor(tool), tool, type, args)
  const output = await tool.run(
    actionContext({ ...parts, payload, node: { ...parts.node, key: `${parts.node.key}/${type}` } }),
  )
  if (isDirective(output)) throw new Error(`tool "${type}" waits or branches, which a tool cannot`)
  return output
}
