import { defineTrigger, Type } from '../../../core/plugin/sdk.ts'

/** The event every run starts with: `{{root.result.body…}}`, `{{$trigger.body…}}`. */
export const TriggerEventSchema = Type.Object({
  type: Type.String(),
  body: Type.Any({ description: 'the webhook body, or the payload of an API run' }),
  headers: Type.Record(Type.String(), Type.String()),
  receivedAt: Type.String({ format: 'date-time' }),
})

export const manual = defineTrigger({
  type: 'manual',
  name: 'Manual or webhook',
  description: "Starts when the run endpoint is called or a JSON body is posted to the workflow's webhook URL.",
  tags: ['generic', 'core'],
  platform: 'core',
  connector: null,
  payload: Type.Object({}),
  result: TriggerEventSchema,
})
