/**
 * The sensitive prop values of a forked workflow, opened for the node that reads them
 * (`{{$props.key}}`). They are sealed in the workflow row and never stored with a run: a run
 * keeps only the plain values, and everything a run keeps or sends masks the sensitive ones by
 * value (secret-masks.ts). Opened values are kept a moment per workflow (`freshMs`), and read
 * again in the background from half that age on while runs use them.
 */
import { createFreshReads } from '../fresh-reads.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { workflows } from '../store/workflows.ts'

export type Props = Readonly<Record<string, unknown>>
const NONE: Props = Object.freeze({})

export interface SecretProps {
  /** The opened values when they are at hand (or the workflow has none), else undefined. */
  peek(workflowId: string): Props | undefined
  of(workflowId: string): Promise<Props>
}

export function createSecretProps(deps: {
  store: Store
  secretBox: SecretBox
  clock: Clock
  logger: Logger
  freshMs?: number
}): SecretProps {
  async function load(workflowId: string): Promise<Props> {
    const sealed = await workflows.sealedProps(deps.store, workflowId)
    let props = NONE
    if (sealed) {
      try {
        props = Object.freeze(JSON.parse(await deps.secretBox.open(sealed)) as Record<string, unknown>)
      } catch (error) {
        deps.logger.error("could not open a workflow's sensitive props", { workflowId, error: String(error) })
      }
    }
    return props
  }
  const reads = createFreshReads({ clock: deps.clock, freshMs: deps.freshMs ?? 1000, load })
  return {
    peek: (workflowId) => reads.peek(workflowId),
    of: (workflowId) => reads.read(workflowId),
  }
}
