/**
 * An agent type's workflow in an organization: the definition generated from the type, published
 * as a workflow of the organization, with the service account whose keys are its runs' worker
 * sessions; made again when someone edited, archived or removed it, or the type changed.
 */
import type { AnyAgent, Registry } from '../plugin/registry.ts'
import { PERMISSIONS, type Permission } from '../domain/permissions.ts'
import type { Definition } from '../domain/workflow.ts'
import { canonicalJson } from '../json.ts'
import { pinVersions } from '../plugin/migrations.ts'
import { sha256Hex } from '../security/hash.ts'
import { type AgentWorkflowRow, agentStore } from '../store/agents.ts'
import { serviceAccounts } from '../store/service-accounts.ts'
import { type AgentServiceDeps, DEFAULT_MAX_STEPS } from './agent-context.ts'
import type { Principal } from './auth.ts'

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

export interface AgentWorkflows {
  /** The organization's workflow and service account for an agent type, made or brought up to date. */
  ensureWorkflow(organizationId: string, agent: AnyAgent): Promise<AgentWorkflowRow>
}

/** Keeps each organization's workflow of an agent type as generated. */
export function createAgentWorkflows(deps: AgentServiceDeps): AgentWorkflows {
  const { store, clock, ids } = deps

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
    // Pinned as a save pins it, so that the live version compares equal to what was generated.
    const definition = pinVersions(deps.registry, agentDefinition(agent, deps.registry))
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

  return { ensureWorkflow }
}
