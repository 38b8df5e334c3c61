/** Test helpers: a Lookup over a plain object, and parse-then-render in one call. */
import { parseTemplate, renderTemplate, type Lookup } from '../../../runtime/expressions/index.ts'

export function lookupIn(scope: Record<string, unknown>): Lookup {
  return (root) => (Object.hasOwn(scope, root) ? scope[root] : undefined)
}

export function render(text: string, scope: Record<string, unknown> = {}): unknown {
  return renderTemplate(parseTemplate(text), lookupIn(scope))
}

export function syntaxErrorOf(text: string): { message: string; offset: number } | undefined {
  try {
    parseTemplate(text)
    return undefined
  } catch (error) {
    const { message, offset } = error as { message: string; offset: number }
    return { message, offset }
  }
}
