/** Buying from a paid API from a workflow: x402-request calls an imported x402 endpoint. */
import { defineAction, Type } from '../../../core/plugin/sdk.ts'

export const x402Request = defineAction({
  type: 'x402-request',
  name: 'x402 request',
  description:
    "Calls one of the organization's imported x402 endpoints and pays for the call from its default wallet, up to the endpoint's maxAllowedPrice; a higher price fails the node and pays nothing.",
  tags: ['x402', 'http', 'core'],
  payload: Type.Object({
    endpointId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The id of an endpoint made by POST /v1/x402-endpoints/import',
    }),
    queryParams: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Merged over the endpoint's default query parameters" }),
    ),
    body: Type.Optional(Type.Unknown({ description: "The JSON body; the endpoint's default body when left out" })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Merged over the endpoint's default headers" }),
    ),
  }),
  result: Type.Object({
    status: Type.Integer(),
    body: Type.Unknown(),
    payment: Type.Union([
      Type.Object({
        transaction: Type.Union([Type.String(), Type.Null()]),
        amount: Type.String(),
        asset: Type.String(),
      }),
      Type.Null(),
    ]),
  }),
  run: (ctx) => ctx.services.x402Request(ctx.payload),
})
