/**
 * What a node's execution answers, made from what its handler returned or threw: a result or a
 * directive turned into an Outcome, errors into failures with their codes, and every outcome
 * bounded in depth and masked before the run keeps it.
 */
import type { WaitRequest } from '../../core/plugin/sdk.ts'
import { AiUnavailableError, CreditsExhaustedError } from '../../core/services/ai.ts'
import { ConnectorUnavailableError, errorMessage } from '../../core/errors.ts'
import { nestsDeeperThan } from '../../core/json.ts'
import type { ValueMask } from '../../core/security/value-mask.ts'
import { isDirective } from './action-context.ts'
import { type Controller, NodeTimeoutError } from './node-abort.ts'
import type { Redactor } from './redact.ts'
import type { Outcome, PendingOutcome } from './types.ts'

/**
 * An outcome nested deeper than this fails its node: a run keeps its nodes' results as JSON, and
 * a value nested deep enough cannot be written (or read back) without overflowing the stack.
 */
export const MAX_OUTCOME_DEPTH = 1000

export const isPending = (result: Outcome | PendingOutcome): result is PendingOutcome => 'pending' in result

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

/** The failure of a node whose action no loaded plugin provides. */
export const unavailableAction = (type: string): Outcome => ({
  kind: 'failure',
  error: `the action "${type}" is not available: no loaded plugin provides it`,
  code: 'disabled_action',
  retryable: false,
})

/** The failure a handler's error stands for: its code, and whether a retry may succeed. */
export function failureOf(error: unknown, payload: Record<string, unknown>, redact: Redactor, logs: string[]): Outcome {
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

/** Masks secrets in everything an outcome carries except the node's input (its resolved payload). */
export function redactOutcome(redact: Redactor, outcome: Outcome): Outcome {
  const { input, ...rest } = outcome
  return { ...redact(rest), input } as Outcome
}

export const pendingOf = (controller: Controller, pending: Promise<Outcome>): PendingOutcome => ({
  pending,
  abort: (reason) => controller.abort(reason),
})

/** The outcome bounded in depth and with the organization's secret values masked (pending or not). */
export function masked(mask: ValueMask, result: Outcome | PendingOutcome): Outcome | PendingOutcome {
  const finish = (outcome: Outcome) => mask(bounded(outcome))
  if (isPending(result)) return { pending: result.pending.then(finish), abort: (reason) => result.abort(reason) }
  return finish(result)
}

/** A failure instead of an outcome too deep to keep. */
export function bounded(outcome: Outcome): Outcome {
  if (!nestsDeeperThan(outcome, MAX_OUTCOME_DEPTH)) return outcome
  return {
    kind: 'failure',
    error: `the node's result nests arrays and objects deeper than ${MAX_OUTCOME_DEPTH} levels`,
    code: 'result_too_deep',
    retryable: false,
  }
}

export const outcomeOf = (result: Outcome | PendingOutcome): Outcome | Promise<Outcome> =>
  isPending(result) ? result.pending : result

export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  !!value &&
  (typeof value === 'object' || typeof value === 'function') &&
  typeof (value as { then?: unknown }).then === 'function'
