/**
 * Errors that reach a client. Services throw these; the HTTP error plugin turns them into the
 * specification's error body (`code`, `message`, `details`, `requestId`) with the same status.
 * Anything else that escapes is a bug and answers 500 without leaking its message.
 */
export interface ErrorDetail {
  readonly path?: string
  readonly message: string
  readonly [key: string]: unknown
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    readonly headers: Readonly<Record<string, string>> = {},
    /** A machine-readable cause a client may branch on (`rate_limited`), added to the error body. */
    readonly reason?: string,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export const badRequest = (message: string, details: readonly ErrorDetail[] = []) => new AppError(400, message, details)
export const unauthorized = (message = 'missing or invalid API key') =>
  new AppError(401, message, [], { 'www-authenticate': 'Bearer' })
export const forbidden = (message: string, details: readonly ErrorDetail[] = []) => new AppError(403, message, details)
export const notFound = (what: string) => new AppError(404, `${what} not found`)
export const conflict = (message: string, details: readonly ErrorDetail[] = []) => new AppError(409, message, details)
export const payloadTooLarge = (limit: number) => new AppError(413, `request body is larger than ${limit} bytes`)
export const unsupportedMediaType = (expected: string) =>
  new AppError(415, `this operation takes ${expected} only`, [
    { path: '/headers/Content-Type', message: `expected ${expected}` },
  ])
export const tooManyRequests = (message: string, retryAfterSeconds?: number, reason?: string) =>
  new AppError(429, message, [], retryAfterSeconds ? { 'retry-after': String(retryAfterSeconds) } : {}, reason)
export const unavailable = (message: string) => new AppError(503, message)

/**
 * The database cannot be reached, or went away during the operation (whose outcome is then
 * unknown: a client resends with the same id or idempotency key). 503 with Retry-After.
 */
export class StoreUnavailableError extends AppError {
  constructor(override readonly cause: unknown) {
    super(503, 'the database is unreachable; try again shortly', [], { 'retry-after': '1' })
  }
}

/**
 * The database's disk is full: the store refuses writes (reads go on) until space is freed, and
 * takes them again as soon as it is. A refused operation was rolled back (or, when the disk
 * filled while its commit was being flushed, its outcome is unknown: a client resends with the
 * same id or idempotency key). 503 with Retry-After.
 */
export class StoreFullError extends AppError {
  constructor(override readonly cause: unknown) {
    super(503, 'the disk is full; nothing can be stored until space is freed; try again shortly', [], {
      'retry-after': '5',
    })
  }
}

/** A node's connector is missing, ambiguous or of the wrong type: the node fails without retries. */
export class ConnectorUnavailableError extends Error {
  override readonly name = 'ConnectorUnavailableError'
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError
}

/** The message of anything thrown: an Error's message (or its name when empty), a string, else its JSON. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}
