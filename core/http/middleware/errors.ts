/**
 * Turns every failure into the specification's error body with the same HTTP status:
 * AppErrors as they say, validation failures as 400 with one detail per problem, malformed
 * bodies as 400, unknown routes as 404, and anything unexpected as a logged 500 that does
 * not leak its message.
 */
import { Elysia } from 'elysia'
import { AppError, type ErrorDetail, isAppError } from '../../errors.ts'
import type { Logger } from '../../ports/logger.ts'
import { stateOf } from '../request-state.ts'
import { errorBody, jsonResponse } from '../responses.ts'
import { redactPath } from '../../security/redact.ts'

interface ValueError {
  path?: string
  message?: string
  summary?: string
  schema?: Record<string, unknown>
  value?: unknown
}

export function errorsPlugin(logger: Logger) {
  return new Elysia({ name: 'errors' }).onError({ as: 'global' }, ({ code, error, request, path, set }) => {
    const requestId = stateOf(request)?.id ?? ''
    const failure = toAppError(code, error, request.method, path)
    // What runs after the response (the request metrics) reads the status from here: Elysia left
    // its own there (422 for a validation failure), not the one this answer carries.
    set.status = failure?.status ?? 500
    if (!failure) {
      logger.error('unhandled error', {
        requestId,
        method: request.method,
        path: redactPath(path),
        error: describe(error),
      })
      return jsonResponse(errorBody(500, 'internal error', [], requestId), 500, { 'x-request-id': requestId })
    }
    return jsonResponse(
      errorBody(failure.status, failure.message, failure.details, requestId, failure.reason),
      failure.status,
      {
        ...failure.headers,
        'x-request-id': requestId,
      },
    )
  })
}

function toAppError(code: unknown, error: unknown, method: string, path: string): AppError | null {
  if (isAppError(error)) return error
  switch (code) {
    case 'VALIDATION':
      return new AppError(400, 'request validation failed', validationDetails(error))
    case 'PARSE': {
      const cause = (error as { cause?: unknown }).cause
      return isAppError(cause) ? cause : new AppError(400, 'request body could not be parsed')
    }
    case 'NOT_FOUND':
      return new AppError(404, `no route for ${method} ${path}`)
    case 'INVALID_COOKIE_SIGNATURE':
    case 'INVALID_FILE_TYPE':
      return new AppError(400, (error as Error).message)
  }
  const status = (error as { status?: unknown } | null)?.status
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new AppError(status, (error as Error).message ?? 'bad request')
  return null
}

function validationDetails(error: unknown): ErrorDetail[] {
  const e = error as { type?: string; all?: ValueError[]; valueError?: ValueError; customError?: unknown }
  const custom = e.customError as ErrorDetail | undefined
  if (custom && typeof custom === 'object' && typeof custom.message === 'string') return [custom]
  const where = e.type ?? 'body'
  const all = Array.isArray(e.all) && e.all.length > 0 ? e.all : e.valueError ? [e.valueError] : []
  const seen = new Set<string>()
  const details: ErrorDetail[] = []
  for (const item of all) {
    const detail = { path: item.path ?? '', in: where, message: describeValueError(item) }
    // One detail per field: the first says what is wrong with it ("is required" before "expected a string").
    if (seen.has(detail.path)) continue
    seen.add(detail.path)
    details.push(detail)
  }
  return details.length > 0 ? details : [{ path: '', in: where, message: 'invalid value' }]
}

/**
 * Query and path values arrive as strings and TypeBox reports them loosely ("Expected union
 * value", or "Expected integer" for 500 against a maximum of 100); say what was expected.
 */
function describeValueError(item: ValueError): string {
  const message = item.summary ?? item.message ?? 'invalid value'
  const schema = numericOrBoolean(item.schema)
  if (!schema) return message
  if (schema.type === 'boolean') return 'must be true or false'
  const kind = schema.type === 'integer' ? 'an integer' : 'a number'
  const min = schema.minimum as number | undefined
  const max = schema.maximum as number | undefined
  const range =
    min !== undefined && max !== undefined
      ? ` between ${min} and ${max}`
      : min !== undefined
        ? ` of at least ${min}`
        : max !== undefined
          ? ` of at most ${max}`
          : ''
  return `must be ${kind}${range}`
}

function numericOrBoolean(schema: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!schema) return undefined
  if (schema.type === 'integer' || schema.type === 'number' || schema.type === 'boolean') return schema
  const variants = schema.anyOf as Array<Record<string, unknown>> | undefined
  return variants?.find((v) => v.type === 'integer' || v.type === 'number' || v.type === 'boolean')
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error)
}
