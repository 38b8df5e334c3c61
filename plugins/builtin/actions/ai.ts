/** Asking the operator's AI model from a workflow: ai-prompt. */
import { defineAction, Type } from '../../../core/plugin/sdk.ts'

export const aiPrompt = defineAction({
  type: 'ai-prompt',
  name: 'AI prompt',
  description:
    "Asks the AI model a question and returns its answer; with a JSON Schema, a parsed JSON answer. Paid from the organization's AI credits: when they run out the workflow pauses (cu_exhausted).",
  tags: ['ai', 'core'],
  payload: Type.Object({
    prompt: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'What to ask; expressions such as {{$trigger.body.text}} are resolved first',
    }),
    system: Type.Optional(Type.String({ maxLength: 20_000, description: 'Instructions that frame the answer' })),
    schema: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'A JSON Schema the answer must follow; the answer is then parsed into `json`',
      }),
    ),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_000, default: 1024 })),
  }),
  result: Type.Object({
    text: Type.String(),
    json: Type.Optional(Type.Unknown()),
    tokensUsed: Type.Integer(),
  }),
  run: (ctx) => ctx.services.prompt(ctx.payload),
})
