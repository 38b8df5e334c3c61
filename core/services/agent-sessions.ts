/**
 * Worker sessions while and after an agent run: the `automaton-api` tool calls the API with the
 * run's session, and the session is revoked in the transaction that records the run's end.
 */
import { isTerminalRunEvent } from '../domain/run-lifecycle.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { BoundedMap } from '../bounded-map.ts'
import { agentStore } from '../store/agents.ts'
import type { AgentServiceDeps } from './agent-context.ts'

/** The worker-session operations of the agent service. */
export function sessionOperations(deps: AgentServiceDeps) {
  const { store, clock } = deps
  /** Whether a workflow is an agent type's (its id is new when it is made, so an answer never changes). */
  const agentWorkflows = new BoundedMap<string, boolean>(10_000)

  return {
    /** The `automaton-api` tool: the API as the run's worker session, while the run lasts. */
    async call(
      runId: string,
      organizationId: string,
      request: { method: string; path: string; body?: unknown; ifMatch?: string },
    ) {
      const row = await agentStore.run(store, organizationId, runId)
      if (!row) throw new Error('this run has no worker session: only agent runs call the API')
      if (row.ended_at !== null) throw new Error('the worker session ended with its run')
      if (!request.path.startsWith('/v1/')) throw new Error('only /v1 paths')
      const key = await deps.secretBox.open(row.sealed_key)
      const response = await deps.api(
        new Request(`http://automaton.internal${request.path}`, {
          method: request.method,
          headers: {
            authorization: `Bearer ${key}`,
            'x-run-id': runId,
            ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
            // The version check of workflow writes applies to agents as to every writer.
            ...(request.ifMatch ? { 'if-match': request.ifMatch } : {}),
          },
          body: request.body !== undefined && request.method !== 'GET' ? JSON.stringify(request.body) : undefined,
        }),
      )
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      const etag = response.headers.get('etag')
      return { status: response.status, body: parsed, ...(etag ? { etag } : {}) }
    },

    /**
     * Revokes the worker session of agent runs that ended, in the transaction that records their
     * end (a listener of the engine's recorder); the auth caches forget the keys after it.
     */
    async onRecorded(
      tx: SqlExecutor,
      events: readonly { type: string; runId: string | null; workflowId: string | null }[],
    ) {
      let ended: string[] | null = null
      for (const e of events) {
        if (!e.runId || !e.workflowId || !isTerminalRunEvent(e.type)) continue
        // Every run's end passes here: only agent workflows' runs cost a query.
        let isAgent = agentWorkflows.get(e.workflowId)
        if (isAgent === undefined) {
          isAgent = await agentStore.isAgentWorkflow(tx, e.workflowId)
          agentWorkflows.set(e.workflowId, isAgent)
        }
        if (!isAgent) continue
        const keyId = await agentStore.end(tx, e.runId, clock.now())
        if (keyId) (ended ??= []).push(keyId)
      }
      if (ended) {
        // Forgotten now, so a request after the commit reads the revocation; and once more after
        // the commit, in case a request cached the key in between.
        const keys = ended
        for (const keyId of keys) deps.auth.invalidate({ keyId })
        setTimeout(() => {
          for (const keyId of keys) deps.auth.invalidate({ keyId })
        }, 0)
      }
    },
  }
}
