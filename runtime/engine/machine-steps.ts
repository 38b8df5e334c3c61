/**
 * How the run machine executes nodes: a chain of nodes whose handlers answer synchronously in
 * one transition, the node left pending for an invoked actor to await, and the step that
 * settles a node's outcome and moves to the next node. The machine's actions and actors call
 * these with the parts of its run (made once per machine, so a node costs no more than before).
 */
import { nextTurn } from './next-turn.ts'
import { isPending } from './node-outcome.ts'
import type { Plan } from './plan.ts'
import { advance, applyOutcome, type BranchesOf, type Emitted, isWaiting, type RunState, type Step } from './state.ts'
import type { NodeRunner, Outcome, PendingOutcome } from './types.ts'

/** Nodes a chain executes in one transition before it yields to the event loop. */
export const MAX_CHAIN = 256

/** The failure of a node whose execution threw where no handler could catch it. */
export const crashed = (error: unknown): Outcome => ({
  kind: 'failure',
  error: `internal error: ${error instanceof Error ? error.message : String(error)}`,
  retryable: false,
})

/** What one run machine executes its nodes with. */
export interface MachineParts {
  readonly plan: Plan
  readonly runner: NodeRunner
  readonly branchesOf: BranchesOf
  readonly now: () => number
  /**
   * Nodes a chain step started whose handlers answered with a promise, for the invoked actor
   * that awaits them. Keyed by the context's `current` object: XState copies the context on
   * every assign, but shallowly, so `current` is the very object the invocation's input holds.
   * A restored snapshot brings new objects, finds nothing, and executes the node again.
   */
  readonly started: WeakMap<object, PendingOutcome>
}

function execute(parts: MachineParts, state: RunState): Outcome | PendingOutcome {
  try {
    return parts.runner.execute(parts.plan, state)
  } catch (error) {
    return crashed(error)
  }
}

/**
 * Executes nodes as long as their handlers answer synchronously, all in one transition,
 * instead of one invoked actor (and its promise, events and snapshots) per node. The events
 * are the same, in the same order, as if each node had been invoked alone.
 */
export function chain(parts: MachineParts, state: RunState): Step {
  let s = state
  const events: Emitted[] = []
  for (let executed = 0; s.current && !s.failed && !isWaiting(s); executed++) {
    if (executed === MAX_CHAIN) {
      // A long chain (a loop over many items) gives the event loop a turn now and then, so
      // one run cannot hold back requests, heartbeats and other runs for its whole length.
      parts.started.set(s.current, onNextTurn(parts, s))
      break
    }
    const result = execute(parts, s)
    if (isPending(result)) {
      parts.started.set(s.current, result)
      break
    }
    const next = settle(parts, s, result)
    s = next.state
    for (const e of next.events) events.push(e)
  }
  return { state: s, events }
}

/** Executes the current node on a later turn of the event loop (not at all once aborted). */
function onNextTurn(parts: MachineParts, state: RunState): PendingOutcome {
  let inner: PendingOutcome | null = null
  let aborted = false
  const pending = new Promise<void>((resolve) => nextTurn(resolve)).then((): Outcome | Promise<Outcome> => {
    if (aborted) return crashed(new Error('the run was stopped'))
    const result = execute(parts, state)
    if (!isPending(result)) return result
    inner = result
    return result.pending
  })
  return {
    pending,
    abort(reason) {
      aborted = true
      inner?.abort(reason)
    },
  }
}

/** The node the chain left pending, or (restored, or after a resume) the current node executed now. */
export function awaitNode(parts: MachineParts, state: RunState, signal: AbortSignal): Promise<Outcome> {
  const current = state.current!
  const result = parts.started.get(current) ?? execute(parts, state)
  parts.started.delete(current)
  if (!isPending(result)) return Promise.resolve(result)
  signal.addEventListener('abort', () => result.abort(signal.reason), { once: true })
  return result.pending.catch(crashed)
}

/** Applies what a node produced and moves to the next node, in one step. */
export function settle(parts: MachineParts, state: RunState, outcome: Outcome): Step {
  const { plan, branchesOf, now } = parts
  const applied = applyOutcome(state, plan, branchesOf, outcome, now())
  if (applied.state.failed || isWaiting(applied.state)) return applied
  const next = advance(applied.state, plan, branchesOf, now())
  return { state: next.state, events: [...applied.events, ...next.events] }
}
