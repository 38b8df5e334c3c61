/**
 * The audit log beyond a request's own operation: what the builder chat's tools do while the
 * answer streams is recorded as the caller's own acts, a workflow the chat created with its id,
 * and a tool's operation the caller may not do as a refusal, like the HTTP path's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { PERMISSIONS } from '../../core/domain/permissions.ts'
import { eventually } from '../helpers/eventually.ts'
import {
  type ScriptedOpenAi,
  scriptedModelEnv,
  startScriptedOpenAi,
  textTurn,
  toolTurn,
} from '../helpers/openai-server.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

const GREETER = {
  name: 'Greeter',
  description: 'Logs a name',
  definition: {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'manual', children: ['say'] },
      say: { type: 'log', payload: { message: '{{$trigger.body.name}}' } },
    },
  },
}

interface AuditRecord {
  operation: string
  outcome: string
  actor: { kind: string; id: string; name: string }
  resource: { type: string; id: string }
  details: { reason?: string }
}

for (const kind of storeKinds()) {
  describe(`audit records of the builder chat's tools (${kind})`, () => {
    let t: TestSystem
    let model: ScriptedOpenAi
    const records = async (operation: string) =>
      (await t.call('GET', `/v1/audit-events?operation=${operation}&limit=50`)).body.data.items as AuditRecord[]
    const proposedWorkflow = (stream: string) => {
      const frame = stream.split('\n\n').find((f) => f.includes('event: workflow.proposed'))
      const data = frame?.split('\n').find((l) => l.startsWith('data: '))
      return data ? (JSON.parse(data.slice(6)) as { workflowId: string }).workflowId : null
    }

    beforeAll(async () => {
      model = startScriptedOpenAi()
      t = await openTestSystem(kind, scriptedModelEnv(model, 1000))
    })
    afterAll(async () => {
      await t?.close()
      await model?.stop()
    })

    it('records the workflow a chat tool creates, with its id, as the caller’s act', async () => {
      model.queue(toolTurn('propose_workflow', GREETER), textTurn('Built it.'))
      const turn = await t.call('POST', '/v1/ai/workflow/chat', { body: { message: 'greet people' } })
      expect(turn.status).toBe(200)
      const workflowId = proposedWorkflow(turn.body as string)
      expect(workflowId).toMatch(/^wf_/)
      await eventually(async () => (await records('workflows.create')).length > 0, 'the creation record')
      const [created] = await records('workflows.create')
      expect(created).toMatchObject({ outcome: 'allowed', actor: { kind: 'key' }, resource: { id: workflowId } })
    })

    it('records a tool’s operation the caller may not do as refused', async () => {
      const account = await t.call('POST', '/v1/service-accounts', {
        body: { name: 'chat-only', permissions: PERMISSIONS.filter((p) => p !== 'workflow:create') },
      })
      const issued = await t.call('POST', '/v1/api-keys', {
        body: { name: 'chat-only', serviceAccountId: account.body.data.id },
      })
      const key = issued.body.data.key as string
      model.queue(toolTurn('propose_workflow', GREETER), textTurn('I could not.'))
      const turn = await t.call('POST', '/v1/ai/workflow/chat', { key, body: { message: 'greet people' } })
      expect(turn.status).toBe(200)
      expect(proposedWorkflow(turn.body as string)).toBeNull()
      await eventually(
        async () => (await records('workflows.create')).some((r) => r.outcome === 'refused'),
        'the refusal record',
      )
      const refused = (await records('workflows.create')).find((r) => r.outcome === 'refused')!
      expect(refused.actor).toEqual({ kind: 'key', id: issued.body.data.id, name: 'chat-only' })
      expect(refused.details.reason).toContain('workflow:create')
    })
  })
}
