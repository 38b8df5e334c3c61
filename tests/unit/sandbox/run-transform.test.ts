import { describe, expect, it } from 'bun:test'
import { createSandbox } from '../../../runtime/sandbox/index.ts'
import { failureOf } from './expect-failure.ts'

// Time is not what these tests are about: a generous deadline, so that a loaded machine never
// turns a slow call into a timeout.
const sandbox = createSandbox({ timeoutMs: 60_000 })

describe('sandboxed transform', () => {
  it('returns transformed objects, arrays, numbers, strings and null', async () => {
    const cases: [string, unknown, unknown][] = [
      ['return { ...input, b: 2 }', { a: 1 }, { a: 1, b: 2 }],
      ['return input.map((n) => n * 2)', [1, 2, 3], [2, 4, 6]],
      ['return input + 1', 41, 42],
      ['return input.toUpperCase()', 'abc', 'ABC'],
      ['return null', {}, null],
    ]
    for (const [body, input, expected] of cases) {
      const { output } = await sandbox.runTransform(`function transform(input) { ${body} }`, input)
      expect(output).toEqual(expected)
    }
  })

  it('turns an undefined result into null', async () => {
    const { output } = await sandbox.runTransform('function transform(input) {}', { a: 1 })
    expect(output).toBeNull()
  })

  it('passes a deep copy of the input, so mutating it inside leaves the caller untouched', async () => {
    const input = { list: [1, 2], nested: { a: 1 } }
    const code = `function transform(input) {
      input.list.push(3); input.nested.a = 2; input.added = true; return input
    }`
    const { output } = await sandbox.runTransform(code, input)
    expect(input).toEqual({ list: [1, 2], nested: { a: 1 } })
    expect(output).toEqual({ list: [1, 2, 3], nested: { a: 2 }, added: true })
  })

  it('passes the input through JSON, so dates arrive as strings and undefined as null', async () => {
    const code = 'function transform(input) { return [typeof input, input] }'
    const at = new Date('2024-01-02T03:04:05.000Z')
    expect((await sandbox.runTransform(code, { at })).output).toEqual(['object', { at: at.toISOString() }])
    expect((await sandbox.runTransform(code, undefined)).output).toEqual(['object', null])
  })

  it('awaits an async transform', async () => {
    const code = `async function transform(input) {
      let total = 0
      for (const n of input) total += await Promise.resolve(n)
      return total
    }`
    const { output } = await sandbox.runTransform(code, [1, 2, 3])
    expect(output).toBe(6)
  })

  it('awaits a returned promise, however many jobs it takes to settle', async () => {
    const code = `function transform(input) {
      let chain = Promise.resolve(0)
      for (let i = 0; i < 5000; i++) chain = chain.then((n) => n + 1)
      return chain
    }`
    const { output } = await sandbox.runTransform(code, null)
    expect(output).toBe(5000)
  })

  it('accepts transform bound with const', async () => {
    const { output } = await sandbox.runTransform('const transform = (input) => input * 3', 2)
    expect(output).toBe(6)
  })

  it('captures console lines, with arguments JSON-stringified and joined by spaces', async () => {
    const code = `function transform(input) {
      console.log('got', input, [1, 'two'], undefined)
      console.info('info'); console.warn('careful'); console.error(new TypeError('bad'))
      return 1
    }`
    const { logs } = await sandbox.runTransform(code, { a: 1 })
    expect(logs).toEqual(['got {"a":1} [1,"two"] undefined', '[info] info', '[warn] careful', '[error] TypeError: bad'])
  })

  it('keeps at most 100 console lines and marks the rest as truncated', async () => {
    const code = 'function transform() { for (let i = 0; i < 500; i++) console.log("line " + i) }'
    const { logs } = await sandbox.runTransform(code, null)
    expect(logs).toHaveLength(101)
    expect(logs[99]).toBe('line 99')
    expect(logs[100]).toBe('… truncated')
  })

  it('keeps at most 10 KiB of console output', async () => {
    const code = 'function transform() { for (let i = 0; i < 5; i++) console.log("x".repeat(3000)) }'
    const { logs } = await sandbox.runTransform(code, null)
    expect(logs.slice(0, -1).join('').length).toBe(10 * 1024)
    expect(logs.at(-1)).toBe('… truncated')
  })

  it('prints values console.log cannot serialise instead of failing', async () => {
    const code = `function transform() {
      const cyclic = {}; cyclic.self = cyclic
      console.log(cyclic, () => 1, 10n, Symbol('s'))
    }`
    const { logs } = await sandbox.runTransform(code, null)
    expect(logs).toEqual(['[unserialisable: TypeError: circular reference] [function] 10 Symbol(s)'])
  })

  it('exposes no host globals, only ECMAScript built-ins and console', async () => {
    const code = `function transform() {
      return [typeof fetch, typeof require, typeof process, typeof Bun, typeof Deno,
        typeof setTimeout, typeof globalThis.fetch, typeof console, typeof JSON, typeof Promise]
    }`
    const { output } = await sandbox.runTransform(code, null)
    expect(output).toEqual([...Array(7).fill('undefined'), 'object', 'object', 'function'])
  })

  it('does not leak state between calls', async () => {
    const first = `function transform() {
      globalThis.leaked = 1; Object.prototype.polluted = true; JSON.parse = () => 'hijacked'
    }`
    await sandbox.runTransform(first, null)
    const second = `function transform(input) {
      return [typeof leaked, ({}).polluted === undefined, JSON.parse('[1]')[0], input]
    }`
    const { output } = await sandbox.runTransform(second, 'clean')
    expect(output).toEqual(['undefined', true, 1, 'clean'])
  })

  it('is not fooled by user code redefining JSON.stringify', async () => {
    const code = `JSON.stringify = () => '"hijacked"'
      function transform() { return { ok: true } }`
    expect((await sandbox.runTransform(code, null)).output).toEqual({ ok: true })
  })

  it('runs 200 calls in a row, failing ones included, without leaking', async () => {
    for (let i = 0; i < 200; i++) {
      if (i % 10 === 9) {
        const error = await failureOf(sandbox.runTransform('function transform() { throw new Error("no") }', i))
        expect(error.kind).toBe('runtime')
        continue
      }
      const code = 'async function transform(input) { const o = { n: input }; console.log(o); return o }'
      const { output, logs } = await sandbox.runTransform(code, i)
      expect(output).toEqual({ n: i })
      expect(logs).toEqual([`{"n":${i}}`])
    }
  })

  it('runs concurrent calls independently', async () => {
    const code = 'async function transform(input) { globalThis.seen = input; await null; return seen }'
    const calls = Array.from({ length: 20 }, (_, i) => sandbox.runTransform(code, i))
    const outputs = (await Promise.all(calls)).map((result) => result.output)
    expect(outputs).toEqual(Array.from({ length: 20 }, (_, i) => i))
  })

  it('reports how long the call took', async () => {
    const { durationMs } = await sandbox.runTransform('function transform() { return 1 }', null)
    expect(durationMs).toBeGreaterThan(0)
    expect(durationMs).toBeLessThan(1000)
  })
})
