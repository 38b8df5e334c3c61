/**
 * The few `bun:test` functions a contract suite uses (describe, it, beforeAll, afterAll and
 * expect's toBe, toEqual, toBeUndefined), for running that suite on Deno, where an import map
 * points `bun:test` here. Tests run in order when `runCollected` is called, which prints one
 * line per test and a closing `N passed, N failed` line, and resolves to the failures' count.
 */

type Hook = () => unknown | Promise<unknown>
interface Suite {
  name: string
  before: Hook[]
  after: Hook[]
  entries: Array<{ name: string; fn: Hook } | Suite>
}

const root: Suite = { name: '', before: [], after: [], entries: [] }
let current = root

export function describe(name: string, body: () => void): void {
  const suite: Suite = { name, before: [], after: [], entries: [] }
  current.entries.push(suite)
  const parent = current
  current = suite
  body()
  current = parent
}

export const it = (name: string, fn: Hook): void => void current.entries.push({ name, fn })
export const test = it
export const beforeAll = (fn: Hook): void => void current.before.push(fn)
export const afterAll = (fn: Hook): void => void current.after.push(fn)

/** Deep equality on values as tests read them: a row without a prototype equals a plain object. */
function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) return equal([...(a as Uint8Array)], [...(b as Uint8Array)])
  const keysA = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined)
  const keysB = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined)
  if (keysA.length !== keysB.length) return false
  return keysA.every((k) => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

function matchers(actual: unknown, negated: boolean) {
  const check = (ok: boolean, what: string, expected?: unknown) => {
    if (ok === negated)
      throw new Error(
        `expected ${JSON.stringify(actual)} ${negated ? 'not ' : ''}${what} ${expected === undefined ? '' : JSON.stringify(expected)}`,
      )
  }
  return {
    toBe: (expected: unknown) => check(Object.is(actual, expected), 'to be', expected),
    toEqual: (expected: unknown) => check(equal(actual, expected), 'to equal', expected),
    toBeUndefined: () => check(actual === undefined, 'to be undefined'),
  }
}

export function expect(actual: unknown) {
  return { ...matchers(actual, false), not: matchers(actual, true) }
}

async function runSuite(suite: Suite, path: string[], counts: { passed: number; failed: number }): Promise<void> {
  const names = suite.name ? [...path, suite.name] : path
  for (const hook of suite.before) await hook()
  for (const entry of suite.entries) {
    if ('entries' in entry) {
      await runSuite(entry, names, counts)
      continue
    }
    const label = [...names, entry.name].join(' > ')
    try {
      await entry.fn()
      counts.passed++
      console.log(`(pass) ${label}`)
    } catch (error) {
      counts.failed++
      console.log(`(fail) ${label}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  for (const hook of suite.after) await hook()
}

/** Runs every collected test in order: the number that failed. */
export async function runCollected(): Promise<number> {
  const counts = { passed: 0, failed: 0 }
  await runSuite(root, [], counts)
  console.log(`${counts.passed} passed, ${counts.failed} failed`)
  return counts.failed
}
