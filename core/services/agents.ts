/**
 * Agent runs (`POST /v1/agent-runs`): an agent type (plugins' `defineAgent`, or the built-in
 * ones) runs as an engine run of a definition generated from the type — model step, tool calls,
 * model step … — so every step is journaled, streams like any run and survives a worker crash.
 *
 * Each run gets a **worker session**: an API key of the organization's service account for that
 * agent type (holding the type's declared permissions and nothing more), minted for the run,
 * sealed at rest, used by the `automaton-api` tool, and revoked in the transaction that records
 * the run's end (a backstop expiry bounds it too).
 *
 * This file keeps the factory, its operation table, the catalog and cancel; the use cases have files
 * of their own (agent-workflows.ts, agent-starting.ts, agent-sessions.ts), sharing agent-context.ts.
 */
import type { Run } from '../domain/run.ts'
import { notFound } from '../errors.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { agentStore } from '../store/agents.ts'
import { type AgentServiceDeps, DEFAULT_MAX_STEPS } from './agent-context.ts'
import { sessionOperations } from './agent-sessions.ts'
import { type StartAgentRun, startOperations } from './agent-starting.ts'
import { createAgentWorkflows } from './agent-workflows.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

export type { AgentServiceDeps } from './agent-context.ts'
export type { StartAgentRun } from './agent-starting.ts'
export { agentDefinition } from './agent-workflows.ts'

/** An enabled agent type as the catalog shows it. */
export interface AgentTypeSummary {
  agentType: string
  name: string
  description: string
  /** The JSON Schema of what a run of the type takes. */
  inputSchema: unknown
  tools: string[]
  permissions: string[]
  maxSteps: number
}

/** Agent runs: the catalog of agent types, starting and cancelling runs, and the worker sessions they use. */
export interface AgentService {
  /** `POST /v1/agent-runs`: starts a run of an agent type, continuing a conversation when one is named. */
  start(caller: Principal, body: StartAgentRun): Promise<{ agentType: string; conversationId: string; runId: string }>
  /** `POST /v1/agent-runs/{runId}/cancel`. */
  cancel(caller: Principal, runId: string): Promise<Run>
  /** `GET /v1/agent-runs/agents`: the enabled agent types. */
  list(): AgentTypeSummary[]
  /** The `automaton-api` tool: the API as the run's worker session, while the run lasts. */
  call(
    runId: string,
    organizationId: string,
    request: { method: string; path: string; body?: unknown; ifMatch?: string },
  ): Promise<{ status: number; body: unknown; etag?: string }>
  /** Revokes the worker session of agent runs that ended, in the transaction that records their end. */
  onRecorded(
    tx: SqlExecutor,
    events: readonly { type: string; runId: string | null; workflowId: string | null }[],
  ): Promise<void>
}

export function createAgentService(deps: AgentServiceDeps): AgentService {
  const { store } = deps
  const enabled = () => deps.registry.agents().filter((a) => !deps.disabled.has(a.type))

  return guarded<AgentService>(
    'agents',
    {
      start: ['agent:run'],
      cancel: ['run:cancel'],
      // The catalog and the engine's listener take no caller; a worker session's calls go through
      // the API, where every operation checks it.
      list: null,
      call: null,
      onRecorded: null,
    },
    {
      /** `GET /v1/agent-runs/agents`: the enabled agent types. */
      list() {
        return enabled().map((a) => ({
          agentType: a.type,
          name: a.name,
          description: a.description,
          inputSchema: a.input ? JSON.parse(JSON.stringify(a.input)) : { type: 'object', properties: {} },
          tools: [...a.tools],
          permissions: [...a.permissions],
          maxSteps: a.maxSteps ?? DEFAULT_MAX_STEPS,
        }))
      },

      ...startOperations(deps, createAgentWorkflows(deps)),

      /** `POST /v1/agent-runs/{runId}/cancel`. */
      async cancel(caller: Principal, runId: string) {
        if (!(await agentStore.run(store, caller.organizationId, runId))) throw notFound('agent run')
        return deps.runs.cancel(caller, runId)
      },

      ...sessionOperations(deps),
    },
  )
}
