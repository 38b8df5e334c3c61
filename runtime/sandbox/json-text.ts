/**
 * Checks on the JSON text that crosses the sandbox boundary: UTF-8 size and nesting depth,
 * turning the caller's input into JSON and the VM's JSON back into a value. Deep nesting is
 * refused because parsing and serialising it inside QuickJS recurses on the host's native stack.
 * It does not move anything into or out of QuickJS.
 */
import { SandboxError } from './sandbox-error.ts'
import { errorMessage } from '../../core/errors.ts'

export const MAX_JSON_DEPTH = 1000

/** Bytes `text` takes as UTF-8, without encoding it. */
export function utf8ByteLength(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (isSurrogatePair(text, i)) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a pair. */
export function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const pair = isSurrogatePair(text, i)
    const size = pair ? 4 : utf8ByteLength(text[i] ?? '')
    if (bytes + size > maxBytes) return text.slice(0, i)
    bytes += size
    if (pair) i++
  }
  return text
}

/** Whether arrays and objects in JSON `text` nest deeper than `maxDepth`. */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === '[' || char === '{') {
      if (++depth > maxDepth) return true
    } else if (char === ']' || char === '}') depth--
  }
  return false
}

/** The caller's input as JSON text within the size and depth limits; `undefined` becomes null. */
export function encodeInput(input: unknown, maxBytes: number): string {
  let json: string | undefined
  try {
    json = JSON.stringify(input)
  } catch (error) {
    throw new SandboxError('input', `input is not JSON-serialisable: ${errorMessage(error)}`, {
      cause: error,
    })
  }
  json ??= 'null'
  assertWithin('input', json, maxBytes)
  return json
}

/** The value of the VM's JSON `text`, refused when it is too large or too deep. */
export function decodeOutput(text: string, maxBytes: number): unknown {
  assertWithin('output', text, maxBytes)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new SandboxError('output', `output is not valid JSON: ${errorMessage(error)}`, {
      cause: error,
    })
  }
}

function assertWithin(kind: 'input' | 'output', json: string, maxBytes: number): void {
  // UTF-8 never takes fewer bytes than UTF-16 code units, so the length alone may refuse.
  const atLeast = json.length > maxBytes
  const bytes = atLeast ? json.length : utf8ByteLength(json)
  if (bytes > maxBytes) {
    const size = `${atLeast ? 'at least ' : ''}${bytes} bytes`
    throw new SandboxError(kind, `${kind} is ${size} of JSON; the limit is ${maxBytes} bytes`)
  }
  if (nestsDeeperThan(json, MAX_JSON_DEPTH)) {
    throw new SandboxError(kind, `${kind} nests deeper than ${MAX_JSON_DEPTH} levels`)
  }
}

function isSurrogatePair(text: string, i: number): boolean {
  const unit = text.charCodeAt(i)
  if (unit < 0xd800 || unit > 0xdbff) return false
  const next = text.charCodeAt(i + 1)
  return next >= 0xdc00 && next <= 0xdfff
}
