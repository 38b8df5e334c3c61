/**
 * Reads request bodies with a size limit (413 past it, before reading when Content-Length
 * says so, while reading otherwise), keeps the raw text for signature checks, and parses
 * JSON, form and text bodies. Invalid JSON is a 400.
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

export function parseBody(text: string, contentType: string): unknown {
  if (text === '') return undefined
  const type = contentType.toLowerCase()
  const looksJson = /^\s*[[{]/.test(text)
  // `curl -d '{…}'` sends JSON labelled as a form; a body that starts like JSON is JSON.
  if (type.includes('application/x-www-form-urlencoded') && !looksJson) return Object.fromEntries(new URLSearchParams(text))
  if (type.startsWith('text/') && !type.includes('json')) return text
  try {
    return JSON.parse(text)
  } catch {
    if (type === '' || type.includes('json') || looksJson) {
      throw badRequest('request body is not valid JSON', [{ path: '', message: 'malformed JSON' }])
    }
    return text
  }
}

export function bodyPlugin(maxBytes: number) {
  return new Elysia({ name: 'body' }).onParse({ as: 'global' }, async ({ request, contentType }) => {
    const text = await readLimited(request, maxBytes)
    const state = stateOf(request)
    if (state) state.rawBody = text
    return parseBody(text, contentType ?? '')
  })
}
