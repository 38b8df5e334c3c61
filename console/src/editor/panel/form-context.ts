/** What every field of the node form reads: the node, the expression scope, problems and where edits go. */
import type { Problem } from './problems.ts'
import type { ExpressionScope } from './scope.ts'

export interface FormContext {
  node: Record<string, unknown>
  scope: ExpressionScope
  problems: readonly Problem[]
  onChange(pointer: string, value: unknown): void
  /** Where dynamic options are loaded from: `/v1/catalog/{triggers|actions}/{type}/options`. */
  optionsPath: string
  connectorId?: string
}

/** A DOM id from a pointer (ids may not hold `/` in CSS selectors comfortably). */
export const domId = (prefix: string, pointer: string): string =>
  `${prefix}${pointer.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`
