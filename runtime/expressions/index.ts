/**
 * The expression language of workflow definitions: `{{ path || 'fallback' }}` templates in JSON
 * strings and keys, and the `$and` / `$or` conditions of `if` and `filter`. Pure TypeScript on web
 * APIs; it never uses eval or Function and gives roots no meaning (the caller's Lookup does).
 */
export type { Expression, Lookup, PathRef, Template, Term } from './types.ts'
export { ExpressionSyntaxError } from './types.ts'
export { hasExpression, parseTemplate, expressionsOf } from './parse-template.ts'
export { evaluateExpression, readPath, renderTemplate, stringifyValue } from './evaluate.ts'
export { collectReferences, resolveValue, type PointedProblem, type PointedRef, type References } from './resolve.ts'
export { CONDITION_OPS, ConditionError, evaluateCondition, validateCondition } from './conditions.ts'
