import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'

/**
 * A decision by a person. The `approval` node waits for one (resumed with
 * `{ "data": { "approved": true } }`); a workflow that starts with it runs when a decision is
 * posted to it (`POST /v1/workflows/{id}/run` with the decision as payload).
 */
export const approvalTrigger = defineTrigger({
  type: 'approval',
  name: 'Approval',
  description:
    'A person approves or rejects. Approval nodes wait for it; as a trigger, a decision posted to the workflow starts a run.',
  tags: ['generic', 'core', 'flow'],
  platform: 'core',
  connector: null,
  payload: Type.Object({
    message: Type.Optional(Type.String({ maxLength: 5000, description: 'what the person is asked to approve' })),
  }),
  result: TriggerEvent(
    Type.Object({
      approved: Type.Boolean(),
      by: Type.Optional(Type.String({ description: 'who decided' })),
      comment: Type.Optional(Type.String()),
      data: Type.Optional(Type.Any({ description: 'anything sent with the decision' })),
    }),
  ),
  waitPayload: Type.Object({
    approved: Type.Optional(Type.Boolean({ description: 'resume only on this decision' })),
  }),
})
