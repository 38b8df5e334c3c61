/**
 * Agent runs (`POST /v1/agent-runs`): an agent type (plugins' `defineAgent`, or the built-in
 * ones) runs as an engine run of a definition generated from the type — model step, tool calls,
 * model step … — so every step is journaled, streams like any run and survives a worker crash.
 *
 * Each run gets a **worker session**: an API key of the organization's service account for that
 * agent type (holding the type's declared permissions and nothing more), minted for the run,
 * sealed at rest, used by the `automaton-api` tool, and revoked in the transaction that records
 * the run's end (a backstop expiry bounds it too).
 */
import type { AgentMessage } from '../plugin/sdk.ts'
import type { AnyAgent, Registry } from '../plugin/registry.ts'
import { PERMISSIONS, type Permission } from '../domain/permissions.ts'
import type { Definition } from '../domain/workflow.ts'
import { isTerminalRunEvent } from '../domain/run-lifecycle.ts'
import { AppError, badRequest, forbidden, notFound } from '../errors.ts'
import { canonicalJson } from '../json.ts'
import type { Clock } from '../ports/clock.ts'
import type { Dispatcher } from '../ports/engine.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { BoundedMap } from '../bounded-map.ts'
import { agentStore } from '../store/agents.ts'
import { serviceAccounts } from '../store/service-accounts.ts'
import type { ApiKeyService } from './api-keys.ts'
import { actorOf, type AuthService, type Principal } from './auth.ts'
import { guarded } from './operations.ts'
import type { RunService } from './runs.ts'
import { triggerEvent } from './runs.ts'
import type { WorkflowService } from './workflows.ts'

/** A worker session outlives no run longer than this, even if the run's end were never recorded. */
const SESSION_MAX_MS = 6 * 60 * 60 * 1000
const DEFAULT_MAX_STEPS = 8
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

/** The generated definition of an agent type: model and tool steps, up to maxSteps. */
export function agentDefinition(agent: AnyAgent, registry: Registry): Definition {
  const steps = agent.maxSteps ?? DEFAULT_MAX_STEPS
  const tools = agent.tools.map((type) => {
    const action = registry.action(type)!
    return {
      name: type,
      description: action.description.slice(0, 1000),
      parameters: JSON.parse(JSON.stringify(action.payload)) as Record<string, unknown>,
    }
  })
  // model_1 → tools_1 (its "tools" branch) → model_2 → … → model_n, which answers without tools.
  const nodes: Record<string, Record<string, unknown>> = { root: { type: 'agent', payload: {}, children: ['model_1'] } }
  for (let k = 1; k <= steps; k++) {
    const final = k === steps || tools.length === 0
    nodes[`model_${k}`] = {
      type: 'agent-model',
      payload: {
        system: agent.system,
        tools,
        transcript: k === 1 ? '{{$trigger.body.transcript}}' : `{{tools_${k - 1}.result.transcript}}`,
        final,
      },
      children: final ? [] : [`tools_${k}`],
    }
    if (final) break
    nodes[`tools_${k}`] = {
      type: 'agent-tools',
      branch: 'tools',
      payload: { allowed: [...agent.tools], transcript: `{{model_${k}.result.transcript}}` },
      children: [`model_${k + 1}`],
    }
  }
  return { triggerNodeIds: ['root'], nodes } as unknown as Definition
}

export function createAgentService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  registry: Registry
  secretBox: SecretBox
  auth: AuthService
  apiKeys: ApiKeyService
  workflows: WorkflowService
  runs: RunService
  dispatcher: Dispatcher
  /** Throws 503 when no model is configured. */
  requireModel: () => void
  /** AUTOMATON_AGENTS_DISABLED. */
  disabled: ReadonlySet<string>
  /** The API's own request handler, for worker sessions' calls. */
  api: (request: Request) => Promise<Response>
}) {
  const { store, clock, ids } = deps
  /** Whether a workflow is an agent type's (its id is new when it is made, so an answer never changes). */
  const agentWorkflows = new BoundedMap<string, boolean>(10_000)

  const enabled = () => deps.registry.agents().filter((a) => !deps.disabled.has(a.type))

  /** The organization acting for itself, to keep its agent workflows. */
  const system = (organizationId: string): Principal => ({
    kind: 'key',
    organizationId,
    keyId: null,
    sessionId: 'agents',
    serviceAccountId: null,
    userId: null,
    role: 'owner',
    scope: 'read-write',
    permissions: new Set<Permission>(PERMISSIONS),
  })

  async function liveAsGenerated(organizationId: string, workflowId: string, definition: Definition): Promise<boolean> {
    try {
      const live = await deps.workflows.getLive(system(organizationId), workflowId)
      return live.status !== 'archived' && canonicalJson(live.definition) === canonicalJson(definition)
    } catch {
      return false
    }
  }

  /** The organization's workflow and service account for an agent type, made or brought up to date. */
  async function ensureWorkflow(organizationId: string, agent: AnyAgent) {
    const definition = agentDefinition(agent, deps.registry)
    const hash = await sha256Hex(
      canonicalJson({ definition, permissions: [...agent.permissions].sort(), name: agent.name }),
    )
    const known = await agentStore.workflow(store, organizationId, agent.type)
    // Kept as generated: a live version someone edited, archived or removed is made again.
    if (
      known &&
      known.definition_hash === hash &&
      (await liveAsGenerated(organizationId, known.workflow_id, definition))
    )
      return known
    const at = clock.now()
    let accountId = known?.service_account_id
    const account = accountId ? await serviceAccounts.byId(store, organizationId, accountId) : undefined
    if (account) {
      await store.write((tx) =>
        serviceAccounts.update(tx, organizationId, account.id, { permissions: [...agent.permissions] }, at),
      )
      deps.auth.invalidate({ serviceAccountId: account.id })
    } else {
      accountId = ids.next('sa')
      await store.write((tx) =>
        serviceAccounts.insert(tx, {
          id: accountId!,
          organizationId,
          name: `agent: ${agent.type}`,
          description: `The worker sessions of ${agent.name} agent runs`,
          permissions: [...agent.permissions],
          createdBy: 'agents',
          at,
        }),
      )
    }
    const caller = system(organizationId)
    const body = {
      name: `Agent: ${agent.name}`.slice(0, 200),
      description: agent.description.slice(0, 1000),
      definition,
    }
    let workflowId = known?.workflow_id
    if (workflowId) await deps.workflows.update(caller, workflowId, body).catch(() => (workflowId = undefined))
    if (!workflowId) workflowId = (await deps.workflows.create(caller, body as never)).id
    await deps.workflows.publish(caller, workflowId)
    const row = {
      organization_id: organizationId,
      agent_type: agent.type,
      workflow_id: workflowId,
      definition_hash: hash,
      service_account_id: accountId!,
    }
    await store.write((tx) => agentStore.saveWorkflow(tx, row))
    return row
  }

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

  return guarded(
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
          if (dispatched.action !== 'triggered')
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

      /** `POST /v1/agent-runs/{runId}/cancel`. */
      async cancel(caller: Principal, runId: string) {
        if (!(await agentStore.run(store, caller.organizationId, runId))) throw notFound('agent run')
        return deps.runs.cancel(caller, runId)
      },

      /** The `automaton-api` tool: the API as the run's worker session, while the run lasts. */
      async call(runId: string, organizationId: string, request: { method: string; path: string; body?: unknown }) {
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
            },
            body: request.body !== undefined && request.method !== 'GET' ? JSON.stringify(request.body) : undefined,
          }),
        )
        const text = await response.text()
        let parsed: unknown = text
        try {
          parsed = JSON.parse(text)
        } catch {}
        return { status: response.status, body: parsed }
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
    },
  )
}

export type AgentService = ReturnType<typeof createAgentService>
