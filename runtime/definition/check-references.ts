/**
 * The expression checks of one node's payload: each `{{…}}` reference names a root that exists
 * where the node stands (a declared variable, an enclosing loop, a card handle in an HTTP
 * request) or a node that runs before it.
 */
import type { PointedRef } from '../expressions/index.ts'
import type { Plan, PlanNode } from '../engine/plan.ts'
import type { AddProblem } from './check-structure.ts'

const FIXED_ROOTS = new Set(['$trigger', '$vars', '$props', '$workflow', '$run', 'root'])
const CARD_FIELDS = ['number', 'expMonth', 'expYear', 'cvc', 'holderName']

/** Where a node's references are checked from. */
interface Scope {
  readonly plan: Plan
  readonly node: PlanNode
  readonly ancestors: ReadonlySet<string>
  readonly variables: ReadonlySet<string>
  /** Raw fields, read by the engine per item (a loop's own condition may use $item). */
  readonly raw: ReadonlySet<string>
}

export function checkReferences(
  plan: Plan,
  node: PlanNode,
  refs: readonly PointedRef[],
  raw: ReadonlySet<string>,
  at: string,
  add: AddProblem,
): void {
  const scope: Scope = {
    plan,
    node,
    raw,
    ancestors: plan.ancestors(node.id),
    variables: new Set([...(plan.definition.variableDefs ?? []).map((v) => v.name)]),
  }
  for (const ref of refs) {
    const problem = referenceProblem(scope, ref)
    if (problem) add(`${at}${ref.pointer}`, problem)
  }
}

/** What is wrong with one reference, if anything. */
function referenceProblem(scope: Scope, ref: PointedRef): string | undefined {
  const { node } = scope
  const root = ref.root
  if (FIXED_ROOTS.has(root)) {
    if (
      root === '$vars' &&
      ref.path[0] !== undefined &&
      scope.plan.definition.variableDefs &&
      !scope.variables.has(ref.path[0])
    )
      return `{{$vars.${ref.path[0]}}} is not a declared variable`
    return undefined
  }
  if (root === '$card') return cardProblem(node, ref)
  if (root === '$item' || root === '$index') {
    const inRawField = scope.raw.has(ref.pointer.split('/')[1] ?? '')
    if (node.loops.length === 0 && !inRawField) return `${root} is only available inside a for-each loop body`
    return undefined
  }
  if (root === '$parent_item') {
    if (node.loops.length < 2) return '$parent_item is only available inside a nested for-each loop body'
    return undefined
  }
  if (root === '$for') {
    if (!ref.path[0] || !node.loops.includes(ref.path[0]))
      return `$for.${ref.path[0] ?? ''} does not name a for-each that encloses this node`
    return undefined
  }
  return nodeReferenceProblem(scope, ref)
}

/** One-time card handles resolve at send time, only in an outbound HTTP request (agents.md). */
function cardProblem(node: PlanNode, ref: PointedRef): string | undefined {
  if (node.type !== 'http-request') return '{{$card…}} is only available in an http-request node'
  if (!ref.path[0] || !CARD_FIELDS.includes(ref.path[1] ?? '') || ref.path.length !== 2)
    return '{{$card.<handle>.<field>}} names a handle and one of number, expMonth, expYear, cvc, holderName'
  return undefined
}

/** A reference to another node's output (`{{id.…}}` or `{{$nodes.id.…}}`). */
function nodeReferenceProblem(scope: Scope, ref: PointedRef): string | undefined {
  const root = ref.root
  const target = root === '$nodes' ? ref.path[0] : root
  if (root.startsWith('$') && root !== '$nodes') return `unknown expression root "${root}"`
  if (!target || !scope.plan.nodes.has(target))
    return `references "${target ?? ''}", which is not a node of this definition`
  if (!scope.ancestors.has(target)) return `references "${target}", which does not run before this node`
  const field = root === '$nodes' ? ref.path[1] : ref.path[0]
  if (scope.node.loops.includes(target) && field === 'result')
    return `the result of "${target}" is not available inside its own loop body; use {{$item}} or {{$for.${target}.item}}`
  return undefined
}
