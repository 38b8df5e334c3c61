/**
 * Reads request bodies with a size limit (413 past it, before reading when Content-Length
 * says so, while reading otherwise), keeps the raw text for signature checks, and parses
 * JSON, form and text bodies. Invalid JSON is a 400, and so is JSON nested deeper than
 * MAX_JSON_DEPTH: a linear scan refuses it before anything recursive (the parser, the
 * validator, the expression resolver) sees it.
 *
 * Routes that need a key are authenticated before a byte of their body is read (see auth.ts).
 */
import { Elysia } from 'elysia'
import { badRequest, payloadTooLarge } from '../../errors.ts'
import { stateOf } from '../request-state.ts'

const utf8 = new TextDecoder()

export async function readLimited(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > maxBytes) throw payloadTooLarge(maxBytes)
  if (!request.body) return ''
  if (declared >= 0) {
    // The length is known and allowed: one read of the whole body instead of a stream of
    // chunks (most requests, and the cheaper path by far); the size is checked all the same.
    const bytes = await request.arrayBuffer()
    if (bytes.byteLength > maxBytes) throw payloadTooLarge(maxBytes)
    return utf8.decode(bytes)
  }
  const reader = request.body.getReader()
  const decoder = new TextDecoder()
  let size = 0
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      throw payloadTooLarge(maxBytes)
    }
    text += decoder.decode(value, { stream: true })
  }
  return text + decoder.decode()
}

/** Arrays and objects nested deeper than this are refused (400) wherever JSON comes in. */
export const MAX_JSON_DEPTH = 64

/**
 * The deepest nesting of arrays and objects in a JSON text, counted without parsing it (strings
 * skipped, escapes honoured); stops counting as soon as `limit` is passed. Linear in the text.
 */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \\ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--
  }
  return false
}

/** The 400 for JSON nested past the bound: named, instead of a stack overflow later. */
const tooDeep = () =>
  badRequest(`request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, [
    { path: '', message: `nested deeper than ${MAX_JSON_DEPTH} levels` },
  ])

export function parseBody(text: string, contentType: string): unknown {
  if (text === '') return undefined
  const type = contentType.toLowerCase()
  const looksJson = /^\s*[[{]/.test(text)
  // `curl -d '{…}'` sends JSON labelled as a form; a body that starts like JSON is JSON.
  if (type.includes('application/x-www-form-urlencoded') && !looksJson)
    return Object.fromEntries(new URLSearchParams(text))
  if (type.startsWith('text/') && !type.includes('json')) return text
  if (jsonDepthExceeds(text)) throw tooDeep()
  try {
    return JSON.parse(text)
  } catch {
    if (type === '' || type.includes('json') || looksJson) {
      throw badRequest('request body is not valid JSON', [{ path: '', message: 'malformed JSON' }])
    }
    return text
  }
}

export interface BodyGate {
  /** `METHOD path` of the routes that need a key: authenticated before their body is read. */
  keyed(): ReadonlySet<string>
  /** Authenticates the request (401 when it cannot be). */
  authenticate(request: Request): Promise<unknown>
}

/** `larger`: routes (`METHOD path`) whose bodies may be larger than `maxBytes` (an app's files). */
export function bodyPlugin(maxBytes: number, gate?: BodyGate, larger: ReadonlyMap<string, number> = new Map()) {
  return new Elysia({ name: 'body' }).onParse({ as: 'global' }, async ({ request, contentType, route }) => {
    const keyed = gate?.keyed().has(`${request.method} ${route}`) ?? false
    if (keyed) await gate!.authenticate(request)
    const text = await readLimited(request, Math.max(maxBytes, larger.get(`${request.method} ${route}`) ?? 0))
    const state = stateOf(request)
    if (state) state.rawBody = text
    if (!keyed) return parseBody(text, contentType ?? '')
    // The API takes JSON objects only (forms, text and other JSON values are for webhooks).
    const body = parseBody(text, 'application/json')
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw badRequest('the request body must be a JSON object', [
        {
          path: '',
          message: `expected an object, got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`,
        },
      ])
    }
    return body
  })
}
