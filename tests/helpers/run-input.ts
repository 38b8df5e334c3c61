/** The input the executor gives a new run, for tests that drive the run machine without a store. */
import type { RunInput } from '../../runtime/engine/state-shape.ts'

/** A run (`run_1` of workflow `wf_1`, version 1, organization `org_1`) started by `trigger` at node `root`. */
export function runInput(trigger: object = { type: 'manual', body: {} }): RunInput {
  return {
    runId: 'run_1',
    workflowId: 'wf_1',
    organizationId: 'org_1',
    workflowVersion: 1,
    triggerNodeId: 'root',
    trigger: trigger as RunInput['trigger'],
    vars: {},
    props: {},
  }
}
