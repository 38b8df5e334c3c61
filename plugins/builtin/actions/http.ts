/** Reaching other systems: http-request, send-webhook, trigger-workflow. */
import { type ActionContext, defineAction, type HttpResponse, Type } from '../../../core/plugin/sdk.ts'
import { oauth2Connector } from '../connectors/oauth2.ts'

const HttpResult = Type.Object({
  status: Type.Integer(),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.Any(),
})

function encode(body: unknown, headers: Record<string, string>): string | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return body
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json'
  return JSON.stringify(body)
}

/** Arrays and objects of a JSON response nested deeper than this are kept as text, not parsed. */
const MAX_RESPONSE_DEPTH = 64

/** Whether JSON text nests deeper than `limit`: a linear scan (strings skipped), no parser. */
function nestsDeeper(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

function decode(response: HttpResponse): unknown {
  const type = response.headers['content-type'] ?? ''
  // A response nested deeper than the bound stays text: parsing it would hold the process.
  if (type.includes('json') && !response.truncated && !nestsDeeper(response.body, MAX_RESPONSE_DEPTH)) {
    try {
      return JSON.parse(response.body)
    } catch {
      return response.body
    }
  }
  return response.body
}

class HttpStatusError extends Error {
  override name = 'HttpStatusError'
}

async function send(
  ctx: ActionContext<unknown, { accessToken?: string } | null>,
  request: { method: string; url: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number },
  failOnError: boolean,
) {
  const headers = { ...(request.headers ?? {}) }
  // An OAuth2 connector's token replaces any Authorization the payload names: naming it is the intent.
  if (ctx.connector?.accessToken) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name]
    headers.authorization = `Bearer ${ctx.connector.accessToken}`
  }
  // Receivers can deduplicate: the key is the same when the engine re-executes the same attempt.
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key'))
    headers['idempotency-key'] = ctx.idempotencyKey
  const response = await ctx.http.send({
    method: request.method,
    url: request.url,
    headers,
    body: encode(request.body, headers),
    timeoutMs: request.timeoutMs,
  })
  const result = { status: response.status, headers: response.headers, body: decode(response) }
  if (failOnError && response.status >= 400) {
    throw new HttpStatusError(
      `${request.method} ${request.url} answered ${response.status}: ${response.body.slice(0, 200)}`,
    )
  }
  return result
}

export const httpRequest = defineAction({
  type: 'http-request',
  name: 'HTTP request',
  description:
    'Sends an HTTP request with an Idempotency-Key header (private and link-local addresses are refused). A status of 400 or more fails the node unless failOnError is false. A node that names an oauth2 connector (connector.id) sends Authorization: Bearer with its current access token, renewed and sent again once on a 401.',
  tags: ['http', 'core'],
  connector: { type: oauth2Connector.type, optional: true },
  payload: Type.Object({
    method: Type.Optional(
      Type.Union(
        ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => Type.Literal(m)),
        { default: 'GET' },
      ),
    ),
    url: Type.String({ minLength: 1, maxLength: 8000 }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    body: Type.Optional(Type.Any()),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 300_000 })),
    failOnError: Type.Optional(Type.Boolean({ default: true })),
  }),
  result: HttpResult,
  run: (ctx) => send(ctx, { ...ctx.payload, method: ctx.payload.method ?? 'GET' }, ctx.payload.failOnError !== false),
})

export const sendWebhook = defineAction({
  type: 'send-webhook',
  name: 'Send webhook',
  description: 'POSTs a JSON body to a URL; a status of 400 or more fails the node.',
  tags: ['http', 'core'],
  payload: Type.Object({
    url: Type.String({ minLength: 1, maxLength: 8000 }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    body: Type.Optional(Type.Any()),
  }),
  result: HttpResult,
  run: (ctx) =>
    send(
      ctx,
      { method: 'POST', url: ctx.payload.url, headers: ctx.payload.headers, body: ctx.payload.body ?? {} },
      true,
    ),
})

export const triggerWorkflow = defineAction({
  type: 'trigger-workflow',
  name: 'Trigger workflow',
  description: "Starts a run of another workflow's live version in this organization, with a payload.",
  tags: ['flow', 'core'],
  payload: Type.Object({
    workflowId: Type.String({ minLength: 1 }),
    payload: Type.Optional(Type.Record(Type.String(), Type.Any())),
  }),
  result: Type.Object({ runId: Type.String() }),
  run: (ctx) => ctx.services.triggerWorkflow(ctx.payload.workflowId, ctx.payload.payload ?? {}),
})
