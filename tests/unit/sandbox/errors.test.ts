import { describe, expect, it } from 'bun:test'
import { createSandbox, SandboxError } from '../../../runtime/sandbox/index.ts'
import { failureOf } from './expect-failure.ts'

// Time is not what these tests are about: a generous deadline, so that a loaded machine never
// turns a slow call into a timeout.
const sandbox = createSandbox({ timeoutMs: 60_000 })

describe('sandbox errors', () => {
  it('reports code that does not parse as a syntax error with its line', async () => {
    const error = await failureOf(sandbox.runTransform('function transform(input) {\n  return input +\n}', null))
    expect(error).toBeInstanceOf(SandboxError)
    expect(error.kind).toBe('syntax')
    expect(error.message).toStartWith('SyntaxError: ')
    expect(error.line).toBe(3)
  })

  it('reports a thrown error as a runtime error with its name, message and line', async () => {
    const code = 'function transform(input) {\n  console.log("before")\n  throw new TypeError("bad")\n}'
    const error = await failureOf(sandbox.runTransform(code, null))
    expect(error.kind).toBe('runtime')
    expect(error.message).toBe('TypeError: bad (line 3)')
    expect(error.line).toBe(3)
    expect(error.logs).toEqual(['before'])
  })

  it('reports a rejected promise as a runtime error', async () => {
    const code = 'async function transform() { await null; throw new RangeError("too far") }'
    const error = await failureOf(sandbox.runTransform(code, null))
    expect(error.kind).toBe('runtime')
    expect(error.message).toStartWith('RangeError: too far')
  })

  it('reports thrown values that are not errors', async () => {
    const error = await failureOf(sandbox.runTransform('function transform() { throw "oops" }', null))
    expect(error.kind).toBe('runtime')
    expect(error.message).toBe('Uncaught "oops"')
  })

  it('reports errors thrown by top-level code as runtime errors', async () => {
    const error = await failureOf(sandbox.runTransform('null.x\nfunction transform() {}', null))
    expect(error.kind).toBe('runtime')
    expect(error.message).toStartWith('TypeError: ')
    expect(error.line).toBe(1)
  })

  it('keeps error messages short', async () => {
    const error = await failureOf(
      sandbox.runTransform('function transform() { throw new Error("x".repeat(100000)) }', null),
    )
    expect(error.message.length).toBeLessThan(1100)
  })

  it('reports code without a transform function as no-transform', async () => {
    const missing = await failureOf(sandbox.runTransform('function transfrom(input) { return input }', null))
    expect(missing.kind).toBe('no-transform')
    expect(missing.message).toContain('not defined')
    const notAFunction = await failureOf(sandbox.runTransform('var transform = 42', null))
    expect(notAFunction.kind).toBe('no-transform')
    expect(notAFunction.message).toContain('number')
  })

  it('drops functions from the output as JSON does, returning null for a top-level function', async () => {
    const code = 'function transform(input) { return input ? { keep: 1, drop() {} } : () => 1 }'
    expect((await sandbox.runTransform(code, true)).output).toEqual({ keep: 1 })
    expect((await sandbox.runTransform(code, false)).output).toBeNull()
  })

  it('reports cyclic, BigInt and too deeply nested output as an output error', async () => {
    const outputs = [
      'const o = {}; o.self = o; return o',
      'return { big: 10n }',
      'let a = []; for (let i = 0; i < 100000; i++) a = [a]; return a',
    ]
    for (const body of outputs) {
      const error = await failureOf(sandbox.runTransform(`function transform() { ${body} }`, null))
      expect(error.kind).toBe('output')
      expect(error.message).toContain('not JSON-serialisable')
    }
  })

  it('rejects code that is not a string with a TypeError', async () => {
    expect(sandbox.runTransform(42 as unknown as string, null)).rejects.toThrow(TypeError)
  })
})
