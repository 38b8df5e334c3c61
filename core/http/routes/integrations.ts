/**
 * Mounts every integration webhook of the loaded plugins (built-in and external alike) at its
 * path, as POST, without API-key auth: the webhook verifies requests itself. The body is read
 * by the body plugin (size limit, raw text kept for signatures); the intake service does the
 * rest. Answers are the webhook's, without the envelope; refusals are the error body.
 */
import { Elysia } from 'elysia'
import { WebhookResult } from '../../domain/run.ts'
import type { RegisteredWebhook } from '../../plugin/registry.ts'
import type { InboundRequest, WebhookAnswer, WebhookIntake } from '../../services/webhook-intake.ts'
import { doc } from '../docs.ts'
import { clientUrlOf, rawBodyOf, stateOf } from '../request-state.ts'
import { jsonResponse } from '../responses.ts'
import { t } from '../schemas.ts'

/** A path as the router sees it: parameters made anonymous (`/v1/orgs/:/…`). */
export const routeShape = (path: string) => path.replace(/:[A-Za-z0-9_]+/g, ':')

function inbound(request: Request, params: Record<string, string>, query: Record<string, unknown>): InboundRequest {
  const flat: Record<string, string> = {}
  for (const [k, v] of Object.entries(query)) flat[k] = Array.isArray(v) ? String(v[0]) : String(v)
  return {
    method: request.method,
    url: clientUrlOf(request),
    params,
    query: flat,
    headers: Object.fromEntries(request.headers),
    rawBody: rawBodyOf(request),
  }
}

function toResponse(answer: WebhookAnswer, request: Request): Response {
  const headers = { ...answer.headers, 'x-request-id': stateOf(request)?.id ?? '' }
  if (typeof answer.body === 'string')
    return new Response(answer.body, {
      status: answer.status,
      headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
    })
  return jsonResponse(answer.body ?? null, answer.status, headers)
}

/**
 * The routes of the given webhooks. `taken` lists the POST routes the app already has: a
 * plugin may not take one of them (the start fails, naming the plugin).
 */
export function integrationRoutes(
  webhooks: readonly RegisteredWebhook[],
  intake: WebhookIntake,
  taken: ReadonlySet<string>,
) {
  const app = new Elysia({ name: 'routes.integrations' })
  for (const entry of webhooks) {
    const { webhook } = entry
    if (taken.has(routeShape(webhook.path))) {
      throw new Error(
        `plugin "${entry.pluginId}": webhook "${webhook.name}": POST ${webhook.path} is a route of the server`,
      )
    }
    const names = [...webhook.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1])
    app.post(
      webhook.path,
      async ({ request, params, query, body }) => {
        void body // read through the body plugin: size limit and raw text
        return toResponse(
          await intake.handle(entry, inbound(request, (params ?? {}) as Record<string, string>, query ?? {})),
          request,
        )
      },
      {
        // An empty body is the webhook's to judge (a signed empty request is skipped), not a parse error.
        parse: ({ request }) => (rawBodyOf(request) === '' ? '' : undefined),
        ...(names.length > 0
          ? { params: t.Object(Object.fromEntries(names.map((n) => [n, t.String({ minLength: 1, maxLength: 200 })]))) }
          : {}),
        detail: doc({
          summary: webhook.description || `Integration webhook ${entry.pluginId}/${webhook.name}`,
          description: `Integration webhook of the ${entry.pluginId} plugin; no API key: ${authText(entry)}. Answers the Webhook result object without the envelope (see docs/integrations.md).`,
          tags: ['integrations'],
          raw: true,
          response: WebhookResult,
          errors: [404, 413],
        }),
      },
    )
  }
  return app
}

function authText(entry: RegisteredWebhook): string {
  const auth = entry.webhook.auth
  switch (auth.kind) {
    case 'connector':
      return `verified with the organization's ${auth.connector.type} connector`
    case 'organization':
      return "verified with the organization's webhook secret"
    case 'setting':
      return `verified with the operator setting ${auth.setting}`
    case 'subscription':
      return "verified with the secrets of the organization's trigger subscriptions"
    default:
      return "verified by the request's content"
  }
}
