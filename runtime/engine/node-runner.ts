/**
 * Executes one node: resolves its payload (expressions, defaults, schema check), builds the
 * action context, calls the plugin's handler with an AbortSignal and the node's timeout, and
 * turns what it returns (a result or a directive) into an Outcome. A throwing handler fails
 * its node, never the process. Also resumes waiting nodes through `resume`/`timeout`.
 *
 * This file prepares a node (its secrets, retry delay, payload and connector); beside it are
 * the call (node-invoke.ts), resumption (node-resume.ts), outcomes (node-outcome.ts), the
 * payload check (node-payload.ts), abort and timeout (node-abort.ts) and what they share
 * (node-kit.ts).
 */
import { errorMessage } from '../../core/errors.ts'
import { sleepOn } from '../../core/ports/clock.ts'
import { noMask, type ValueMask } from '../../core/security/value-mask.ts'
import { type Controller, lazyController } from './node-abort.ts'
import { invoke } from './node-invoke.ts'
import { type NodeKit, type NodeRunnerDeps, outlastingOutages } from './node-kit.ts'
import { failureOf, isThenable, masked, outcomeOf, pendingOf, unavailableAction } from './node-outcome.ts'
import { payloadRules, resolvePayload } from './node-payload.ts'
import { resume } from './node-resume.ts'
import type { Plan } from './plan.ts'
import { scopeLookup } from './scope.ts'
import type { RunState } from './state.ts'
import type { NodeRunner, Outcome, PendingOutcome } from './types.ts'

export { NodeTimeoutError } from './node-abort.ts'
export type { NodeRunnerDeps } from './node-kit.ts'
export { MAX_OUTCOME_DEPTH, toOutcome } from './node-outcome.ts'

const NO_PROPS: Readonly<Record<string, unknown>> = Object.freeze({})

interface Secrets {
  readonly mask: ValueMask
  readonly props: Readonly<Record<string, unknown>>
}

export function createNodeRunner(deps: NodeRunnerDeps): NodeRunner {
  const kit: NodeKit = { deps, now: () => deps.clock.now(), rulesFor: payloadRules() }
  return {
    execute: (plan, state) => execute(kit, plan, state),
    resume: (plan, task, signal) => resume(kit, plan, task, signal),
    ready: (organizationId, workflowId) => {
      const secrets = secretsOf(kit, organizationId, workflowId)
      return isThenable(secrets) ? secrets : undefined
    },
  }
}

/** The state a node's expressions see: the run's props with the workflow's sensitive ones. */
function withProps(state: RunState, secret: Readonly<Record<string, unknown>>): RunState {
  for (const _ in secret) return { ...state, props: { ...state.props, ...secret } }
  return state
}

/**
 * Executes the current node. A handler that answers synchronously (most built-in actions do)
 * gives its outcome at once, so the run machine executes a chain of such nodes in one
 * transition; whatever has to wait (a retry delay, opening a connector, a handler returning
 * a promise) comes back pending, for the machine to await in an invoked actor.
 */
function execute(kit: NodeKit, plan: Plan, state: RunState): Outcome | PendingOutcome {
  const controller = lazyController()
  const secrets = secretsOf(kit, state.organizationId, state.workflowId)
  if (!isThenable(secrets))
    return masked(secrets.mask, executeWith(kit, plan, withProps(state, secrets.props), controller, secrets.mask))
  // The organization's mask (or the workflow's sensitive props) is not at hand: read it first,
  // so that nothing leaves unmasked.
  let first: typeof secrets | null = secrets
  const read = outlastingOutages(
    kit.deps.clock,
    () => {
      const reading = first ?? secretsOf(kit, state.organizationId, state.workflowId)
      first = null
      return reading
    },
    () => controller.signal,
  )
  return pendingOf(
    controller,
    read.then(({ mask, props }) =>
      outcomeOf(masked(mask, executeWith(kit, plan, withProps(state, props), controller, mask))),
    ),
  )
}

/** The organization's mask and the workflow's sensitive props: at hand, or once read. */
function secretsOf(kit: NodeKit, organizationId: string, workflowId: string): Secrets | Promise<Secrets> {
  const { masks, secretProps } = kit.deps
  const mask = masks ? masks.peek(organizationId) : noMask
  const props = secretProps ? secretProps.peek(workflowId) : NO_PROPS
  if (mask && props) return { mask, props }
  return Promise.all([mask ?? masks!.of(organizationId), props ?? secretProps!.of(workflowId)]).then(
    ([mask, props]) => ({ mask, props }),
  )
}

/** Starts the node, after its retry delay when it is a retry. */
function executeWith(
  kit: NodeKit,
  plan: Plan,
  state: RunState,
  controller: Controller,
  mask: ValueMask,
): Outcome | PendingOutcome {
  const delay = state.current!.frame.retryDelayMs
  if (!delay) return start(kit, plan, state, controller, mask)
  return pendingOf(
    controller,
    sleepOn(kit.deps.clock, delay, controller.signal).then(() => outcomeOf(start(kit, plan, state, controller, mask))),
  )
}

/** Resolves the node's payload and opens its connector (if its action has one), then calls the handler. */
function start(
  kit: NodeKit,
  plan: Plan,
  state: RunState,
  controller: Controller,
  mask: ValueMask,
): Outcome | PendingOutcome {
  const node = plan.node(state.current!.frame.nodeId)
  const action = kit.deps.registry.action(node.type, node.def.typeVersion)
  if (!action) return unavailableAction(node.type)
  let payload: Record<string, unknown>
  try {
    const lookup = scopeLookup(plan, state, state.current!.frame.scope)
    payload = resolvePayload(kit.rulesFor(action), action, node.def.payload ?? {}, lookup)
  } catch (error) {
    return { kind: 'failure', error: errorMessage(error), code: 'invalid_payload', retryable: false }
  }
  if (!action.connector || (action.connector.optional && !node.def.connector?.id))
    return invoke(kit, plan, state, action, payload, controller, null, mask)
  const opening = outlastingOutages(
    kit.deps.clock,
    () => kit.deps.capabilities.connector(state.organizationId, node.def.connector, action.connector!.type),
    () => controller.signal,
  )
  return pendingOf(
    controller,
    opening.then(
      (opened) => outcomeOf(invoke(kit, plan, state, action, payload, controller, opened, mask)),
      (error) => failureOf(error, payload, (value) => value, []),
    ),
  )
}
