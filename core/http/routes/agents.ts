/** Agent runs: the enabled agent types, starting one, cancelling one. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import type { AgentService } from '../../services/agents.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { t } from '../schemas.ts'

const tags = ['agents']

export function agentRoutes(auth: AuthPlugin, agents: AgentService) {
  return new Elysia({ name: 'routes.agents' })
    .use(auth)
    .get('/v1/agent-runs/agents', () => agents.list(), {
      permission: 'agent:run',
      detail: doc({
        summary: 'The enabled agent types',
        tags,
        permission: 'agent:run',
        response: T.Array(
          T.Object({
            agentType: T.String(),
            name: T.String(),
            description: T.String(),
            inputSchema: T.Record(T.String(), T.Any()),
            tools: T.Array(T.String()),
            permissions: T.Array(T.String()),
            maxSteps: T.Integer(),
          }),
        ),
      }),
    })
    .post('/v1/agent-runs', ({ principal, body }) => agents.start(principal, body), {
      permission: 'agent:run',
      body: t.Object({
        agentType: t.String({ minLength: 1, maxLength: 100 }),
        prompt: t.String({ minLength: 1, maxLength: 100_000 }),
        conversationId: t.Optional(t.String({ maxLength: 100 })),
        payload: t.Optional(t.Record(t.String(), t.Any())),
        parentSpan: t.Optional(t.String({ maxLength: 500 })),
        parentProject: t.Optional(t.String({ maxLength: 500 })),
      }),
      detail: doc({
        summary: 'Start an agent run',
        description:
          "The agent runs as an engine run on a worker (GET /v1/runs/{runId} and the run streams show its steps), with a worker session holding only its type's permissions. An unknown type is 400, a disabled one 403; conversationId joins an earlier conversation (404 when the organization has none such).",
        tags,
        permission: 'agent:run',
        errors: [403, 404, 503],
        response: T.Object({ agentType: T.String(), conversationId: T.String(), runId: T.String() }),
      }),
    })
    .post('/v1/agent-runs/:runId/cancel', ({ principal, params }) => agents.cancel(principal, params.runId), {
      permission: 'run:cancel',
      params: t.Object({ runId: t.String({ minLength: 1, maxLength: 100 }) }),
      detail: doc({
        summary: 'Cancel an agent run',
        tags,
        permission: 'run:cancel',
        errors: [404, 409],
        response: T.Record(T.String(), T.Any(), { description: 'the run' }),
      }),
    })
}
