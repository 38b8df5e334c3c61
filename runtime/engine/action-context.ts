/**
 * The context an action handler gets, built in one place for the engine's node runner and the
 * plugin test kit (runtime/testing/action.ts): the idempotency key's form, expression
 * evaluation against a scope, and the directive helpers are the same in both; what differs
 * (where logs, HTTP, variables and services go) is passed in.
 */
import type { ActionContext, Directive, RunInfo, WaitRequest } from '../../core/plugin/sdk.ts'
import { pluginCrypto } from '../../core/plugin/webhook-crypto.ts'
import { evaluateCondition, resolveValue } from '../expressions/index.ts'

const DIRECTIVE = Symbol.for('automaton.directive')

export function makeDirective(kind: 'branch', branch: string, result: unknown): Directive
export function makeDirective(kind: 'wait', wait: WaitRequest): Directive
export function makeDirective(kind: 'loop', items: readonly unknown[]): Directive
export function makeDirective(kind: string, a: unknown, b?: unknown): Directive {
  const base = { [DIRECTIVE]: true, kind }
  if (kind === 'branch') return { ...base, branch: a, result: b } as unknown as Directive
  if (kind === 'wait') return { ...base, wait: a } as unknown as Directive
  return { ...base, items: a } as unknown as Directive
}

export const isDirective = (value: unknown): value is Directive & { kind: string } =>
  !!value && typeof value === 'object' && (value as Record<symbol, unknown>)[DIRECTIVE] === true

/** The directive helpers of every action context: they hold no state, so one set serves all. */
export const DIRECTIVES = Object.freeze({
  branch: (branch: string, result: unknown) => makeDirective('branch', branch, result),
  wait: (request: WaitRequest) => makeDirective('wait', request),
  loop: (items: readonly unknown[]) => makeDirective('loop', items),
})

/** Stable across re-executions of the same attempt: (run, node instance, attempt). */
export const idempotencyKeyOf = (runId: string, key: string, attempt: number) => `${runId}:${key}:${attempt}`

export interface ActionContextParts<P, K> {
  payload: P
  run: RunInfo
  node: { id: string; key: string; attempt: number }
  /** Read when the handler asks (the engine makes its controller lazily). */
  signal: () => AbortSignal
  connector: K | null
  log: ActionContext<P, K>['log']
  now: () => number
  http: ActionContext<P, K>['http']
  /** Expression roots for `evaluate` and `evaluateCondition`, with extra roots such as `$item`. */
  lookup: (extra?: Record<string, unknown>) => (root: string) => unknown
  vars: ActionContext<P, K>['vars']
  services: ActionContext<P, K>['services']
}

export function actionContext<P, K>(parts: ActionContextParts<P, K>): ActionContext<P, K> {
  return {
    payload: parts.payload,
    run: parts.run,
    node: parts.node,
    idempotencyKey: idempotencyKeyOf(parts.run.id, parts.node.key, parts.node.attempt),
    get signal() {
      return parts.signal()
    },
    connector: parts.connector,
    log: parts.log,
    now: parts.now,
    http: parts.http,
    crypto: pluginCrypto,
    evaluate: (value, extra) => resolveValue(value, parts.lookup(extra)),
    evaluateCondition: (condition, extra) => evaluateCondition(condition, parts.lookup(extra)),
    vars: parts.vars,
    services: parts.services,
    ...DIRECTIVES,
  }
}
