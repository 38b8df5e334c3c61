import { describe, expect, it } from 'bun:test'
import {
  decodeOutput,
  encodeInput,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  truncateUtf8,
  utf8ByteLength,
} from '../../../runtime/sandbox/json-text.ts'
import { SandboxError } from '../../../runtime/sandbox/sandbox-error.ts'

const encoder = new TextEncoder()

describe('JSON text at the sandbox boundary', () => {
  it('measures UTF-8 bytes as TextEncoder does', () => {
    for (const text of ['', 'ascii', 'héllo', '€uro', 'emoji 😀 pair', '\ud800 lone']) {
      expect(utf8ByteLength(text)).toBe(encoder.encode(text).byteLength)
    }
  })

  it('truncates to a byte budget without splitting a surrogate pair', () => {
    expect(truncateUtf8('abcdef', 3)).toBe('abc')
    expect(truncateUtf8('a😀b', 4)).toBe('a')
    expect(truncateUtf8('a😀b', 5)).toBe('a😀')
    expect(truncateUtf8('éé', 3)).toBe('é')
  })

  it('measures nesting, ignoring brackets inside strings', () => {
    expect(nestsDeeperThan('[[[]]]', 3)).toBe(false)
    expect(nestsDeeperThan('[[[[]]]]', 3)).toBe(true)
    expect(nestsDeeperThan('[{"a":[1]},{"b":2}]', 3)).toBe(false)
    expect(nestsDeeperThan('["[[[[", "\\"[[[["]', 1)).toBe(false)
  })

  it('encodes input as JSON, undefined as null', () => {
    expect(encodeInput({ a: [1, 'b'] }, 100)).toBe('{"a":[1,"b"]}')
    expect(encodeInput(undefined, 100)).toBe('null')
  })

  it('refuses input that is too large, too deep or not serialisable', () => {
    let deep: unknown = 0
    for (let i = 0; i <= MAX_JSON_DEPTH; i++) deep = [deep]
    expect(kindThrownBy(() => encodeInput('abc', 4))).toBe('input')
    expect(kindThrownBy(() => encodeInput(deep, 1e6))).toBe('input')
    expect(kindThrownBy(() => encodeInput(10n, 100))).toBe('input')
  })

  it('decodes output within its limit and refuses larger output', () => {
    expect(decodeOutput('{"ok":true}', 11)).toEqual({ ok: true })
    expect(() => decodeOutput('{"ok":true}', 10)).toThrow(SandboxError)
  })
})

function kindThrownBy(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    return error instanceof SandboxError ? error.kind : 'not a SandboxError'
  }
  return undefined
}
