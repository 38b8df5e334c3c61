/**
 * What executing a node needs, shared by the node runner's parts: the runner's dependencies,
 * the clock's time, the payload rules per action type, and reads that outlast a store outage.
 */
import type { Clock } from '../../core/ports/clock.ts'
import { sleepOn } from '../../core/ports/clock.ts'
import { StoreUnavailableError } from '../../core/errors.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { AnyAction, Registry } from '../../core/plugin/registry.ts'
import type { SecretProps } from '../../core/services/secret-props.ts'
import type { SecretMasks } from '../../core/security/value-mask.ts'
import type { Capabilities } from './capabilities.ts'
import type { PayloadRules } from './node-payload.ts'

export interface NodeRunnerDeps {
  registry: Registry
  clock: Clock
  capabilities: Capabilities
  logger: Logger
  /** The organization's secret values, masked in every outcome (input, result, error, logs, variables, wait). */
  masks?: SecretMasks
  /** The sensitive prop values of forked workflows, read by `{{$props.key}}` but never kept in a run. */
  secretProps?: SecretProps
}

/** One node runner's dependencies and what it works out once for all its nodes. */
export interface NodeKit {
  readonly deps: NodeRunnerDeps
  /** The clock's time, as actions read it (`ctx.now`). */
  readonly now: () => number
  /** What a payload check needs of an action, worked out once per action type. */
  readonly rulesFor: (action: AnyAction) => PayloadRules
}

/** Pauses between two reads while the store is unreachable: from a tenth of a second to two seconds. */
const OUTAGE_PAUSES_MS = [100, 200, 500, 1000, 2000]

/**
 * What the engine reads for a node before its handler runs (the organization's masks, the
 * workflow's sensitive props, a connector), and the masks for a resumed node's outcome, wait
 * while the store cannot be reached: the node has not done anything, and failing it would fail
 * its run, and count towards pausing its workflow, for an outage. Until the node is aborted.
 */
export async function outlastingOutages<T>(
  clock: Clock,
  read: () => T | Promise<T>,
  signal: () => AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read()
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error
      await sleepOn(clock, OUTAGE_PAUSES_MS[Math.min(attempt, OUTAGE_PAUSES_MS.length - 1)], signal())
    }
  }
}
