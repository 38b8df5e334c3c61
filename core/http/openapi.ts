/** Builds the OpenAPI 3.1 document from the app's routes and their TypeBox schemas. */
import { ErrorBody } from '../domain/common.ts'
import type { RouteDoc } from './docs.ts'

export interface RouteLike {
  method: string
  path: string
  hooks?: { body?: unknown; query?: unknown; params?: unknown; headers?: unknown; detail?: unknown }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, unknown, revoked or expired API key',
  403: 'Missing permission',
  404: 'Not found',
  409: 'Conflict with the current state',
  412: 'The resource changed since it was read (If-Match)',
  413: 'Body too large',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Unavailable',
}

/** The tags a newcomer needs first, in that order; every other tag follows alphabetically. */
const FIRST_TAGS = [
  'workflows',
  'runs',
  'webhooks',
  'streams',
  'catalog',
  'connectors',
  'templates',
  'api keys',
  'organizations',
  'members',
  'people',
  'service accounts',
  'integrations',
  'execution webhooks',
  'x402',
  'wallets',
]

/** The document's `tags`, in reading order: the ones a newcomer needs first, then the rest by name. */
function tagsOf(paths: Record<string, Record<string, unknown>>): { name: string }[] {
  const used = new Set<string>()
  for (const ops of Object.values(paths))
    for (const op of Object.values(ops)) for (const tag of (op as { tags?: string[] }).tags ?? []) used.add(tag)
  const first = FIRST_TAGS.filter((tag) => used.has(tag))
  const rest = [...used].filter((tag) => !FIRST_TAGS.includes(tag)).sort()
  return [...first, ...rest].map((name) => ({ name }))
}

export function buildOpenApi(routes: readonly RouteLike[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const detail = route.hooks?.detail as RouteDoc | undefined
    if (!detail || detail.hide || route.method === 'ALL' || route.path.includes('*')) continue
    // A route a prefix group declares as '/' answers without the slash too; the document lists it without.
    const path = route.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1')
    const op: Record<string, unknown> = {
      summary: detail.summary,
      tags: detail.tags,
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string) => (c ? c.toUpperCase() : ''))}`,
    }
    if (detail.description) op.description = detail.description
    const parameters = [
      ...parametersOf(route.hooks?.params, 'path'),
      ...parametersOf(route.hooks?.query, 'query'),
      ...parametersOf(route.hooks?.headers, 'header'),
    ]
    if (parameters.length) op.parameters = parameters
    if (route.hooks?.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: clean(route.hooks.body) } } }
    }
    if (detail.permission) {
      op.security = [{ bearer: [] }]
      if (detail.permission !== 'authenticated') {
        // Every permission the operation needs; `x-permission` keeps the first for older clients.
        const needs = typeof detail.permission === 'string' ? [detail.permission] : [...detail.permission]
        op['x-permissions'] = needs
        op['x-permission'] = needs[0]
      }
    }
    op.responses = responsesOf(detail)
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = op
  }
  return {
    openapi: '3.1.0',
    info: { ...info, description: 'Automaton: self-hosted workflow automation. Every path starts with /v1.' },
    tags: tagsOf(paths),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key, `svcsk_…`, or a sign-in session, `sess_…` (also taken from the `automaton_session` cookie, with `X-CSRF-Token` on requests that change something)',
        },
      },
      schemas: { ErrorBody: clean(ErrorBody) },
    },
  }
}

function responsesOf(detail: RouteDoc) {
  const ok = detail.produces
    ? { description: 'OK', content: { [detail.produces]: {} } }
    : {
        description: 'OK',
        content: {
          'application/json': {
            schema: detail.raw
              ? clean(detail.response ?? {})
              : {
                  type: 'object',
                  required: ['code', 'data', 'message', 'requestId'],
                  properties: {
                    code: { const: 200 },
                    message: { const: 'success' },
                    requestId: { type: 'string' },
                    data: clean(detail.response ?? {}),
                  },
                },
          },
        },
      }
  const statuses = new Set([400, ...(detail.permission ? [401, 403] : []), ...(detail.errors ?? [])])
  const responses: Record<string, unknown> = { 200: ok }
  for (const status of [...statuses].sort()) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    }
  }
  return responses
}

function parametersOf(schema: unknown, where: 'path' | 'query' | 'header') {
  const s = schema as { properties?: Record<string, unknown>; required?: string[] } | undefined
  if (!s?.properties) return []
  return Object.entries(s.properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    schema: clean(property),
  }))
}

/** Plain JSON Schema: drops TypeBox symbols and Elysia's string twins of coercible query numbers. */
export function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean)
  if (!schema || typeof schema !== 'object') return schema
  const s = schema as Record<string, unknown>
  if (Array.isArray(s.anyOf)) {
    const variants = s.anyOf as Array<Record<string, unknown>>
    const typed = variants.filter(
      (v) => !(v.type === 'string' && ['integer', 'numeric', 'boolean'].includes(String(v.format))),
    )
    if (typed.length === 1 && variants.length === 2) return clean({ ...typed[0], ...without(s, 'anyOf') })
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(s)) out[k] = clean(v)
  return out
}

function without(o: Record<string, unknown>, key: string) {
  const { [key]: _, ...rest } = o
  return rest
}
