/**
 * Starting an agent run: a conversation (new, or one carried on with the transcript its last run
 * reached), the type's workflow, a worker session minted for the run and sealed in `agent_runs`,
 * then the dispatch; a run that does not start takes its session with it.
 */
import type { AgentMessage } from '../plugin/sdk.ts'
import { AppError, badRequest, forbidden, notFound } from '../errors.ts'
import { agentStore } from '../store/agents.ts'
import { type AgentServiceDeps, SESSION_MAX_MS } from './agent-context.ts'
import type { AgentWorkflows } from './agent-workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import { triggerEvent } from './runs.ts'

/** Messages of an earlier conversation carried into a new run, at most. */
const HISTORY_MESSAGES = 40
/** A W3C trace context: as parentSpan, it makes the run's trace a child of the caller's span. */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/

export interface StartAgentRun {
  agentType: string
  prompt: string
  conversationId?: string
  payload?: Record<string, unknown>
  parentSpan?: string
  parentProject?: string
}

/** The start operation of the agent service. */
export function startOperations(deps: AgentServiceDeps, agentWorkflows: AgentWorkflows) {
  const { store, clock, ids } = deps
  const { ensureWorkflow } = agentWorkflows

  /** The transcript a conversation has reached: the last finished run's, from its last model step. */
  async function history(caller: Principal, conversationId: string): Promise<AgentMessage[]> {
    for (const earlier of await agentStore.runsOf(store, conversationId, 5)) {
      const run = await deps.runs.get(caller, earlier.run_id).catch(() => null)
      if (!run) continue
      const steps = Object.entries(run.nodes as Record<string, { result?: { transcript?: AgentMessage[] } }>)
        .filter(([id, n]) => id.startsWith('model_') && Array.isArray(n.result?.transcript))
        .sort(([a], [b]) => Number(b.slice(6)) - Number(a.slice(6)))
      if (steps.length > 0) return steps[0][1].result!.transcript!.slice(-HISTORY_MESSAGES)
    }
    return []
  }

  return {
    /** `POST /v1/agent-runs`. */
    async start(caller: Principal, body: StartAgentRun) {
      const agent = deps.registry.agent(body.agentType)
      if (!agent)
        throw badRequest(`unknown agent type "${body.agentType}"`, [
          {
            path: '/agentType',
            message: `one of ${deps.registry
              .agents()
              .map((a) => a.type)
              .join(', ')} (GET /v1/agent-runs/agents)`,
          },
        ])
      if (deps.disabled.has(agent.type))
        throw forbidden(`the agent type "${agent.type}" is disabled in this installation`)
      deps.requireModel()
      const at = clock.now()
      let conversationId = body.conversationId
      if (conversationId) {
        if (!(await agentStore.conversation(store, caller.organizationId, conversationId)))
          throw notFound('conversation')
      } else {
        conversationId = ids.next('conv')
        await store.write((tx) =>
          agentStore.insertConversation(tx, {
            id: conversationId!,
            organizationId: caller.organizationId,
            agentType: agent.type,
            createdBy: actorOf(caller),
            at,
          }),
        )
      }
      const { workflow_id: workflowId, service_account_id: accountId } = await ensureWorkflow(
        caller.organizationId,
        agent,
      )
      const earlier = body.conversationId ? await history(caller, conversationId) : []
      const asked =
        body.payload && Object.keys(body.payload).length > 0
          ? `${body.prompt}\n\nInput:\n${JSON.stringify(body.payload)}`
          : body.prompt
      const transcript: AgentMessage[] = [...earlier, { role: 'user', content: asked }]
      const runId = ids.next('run')
      const session = await deps.apiKeys.issue({
        organizationId: caller.organizationId,
        name: `agent run ${runId}`,
        description: `worker session of agent run ${runId} (${agent.type})`,
        scope: 'read-write',
        role: null,
        serviceAccountId: accountId,
        userId: null,
        createdBy: actorOf(caller),
        expiresAt: at + SESSION_MAX_MS,
      })
      const sealed = await deps.secretBox.seal(session.key)
      await store.write((tx) =>
        agentStore.insertRun(tx, {
          run_id: runId,
          organization_id: caller.organizationId,
          agent_type: agent.type,
          conversation_id: conversationId!,
          user_id: caller.userId,
          key_id: session.id,
          sealed_key: sealed,
          parent_span: body.parentSpan ?? null,
          parent_project: body.parentProject ?? null,
          created_at: at,
          ended_at: null,
        }),
      )
      try {
        const dispatched = await deps.dispatcher.dispatch({
          organizationId: caller.organizationId,
          workflowId,
          version: 'live',
          automatic: false,
          triggeredBy: caller.userId ? 'user' : 'key',
          runId,
          event: triggerEvent(
            'agent',
            {
              agentType: agent.type,
              prompt: body.prompt,
              payload: body.payload ?? {},
              conversationId,
              transcript,
              ...(body.parentSpan ? { parentSpan: body.parentSpan } : {}),
              ...(body.parentProject ? { parentProject: body.parentProject } : {}),
            },
            TRACEPARENT.test(body.parentSpan ?? '') ? { traceparent: body.parentSpan! } : {},
            at,
          ),
        })
        if (dispatched.action === 'skipped')
          throw new AppError(409, `the agent run was not started: ${dispatched.reason}`)
      } catch (error) {
        await store.write(async (tx) => {
          await agentStore.end(tx, runId, clock.now())
          await agentStore.deleteRun(tx, runId)
        })
        deps.auth.invalidate({ keyId: session.id })
        throw error
      }
      return { agentType: agent.type, conversationId, runId }
    },
  }
}
