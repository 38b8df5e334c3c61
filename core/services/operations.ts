/**
 * Authorization belongs to the operation, not to the route. Every service names what each of
 * its operations needs in a table, and `guarded` checks it whenever the operation is called:
 * from a route, from the builder chat's tools, from an agent's `automaton-api` tool, from
 * anything added later. Routes keep their early check (it answers 403 before a body is read);
 * this one is what holds when a path forgets.
 *
 * A table names every method of its service. A method whose first argument is the caller must
 * name the permissions it needs (an empty list: any caller of the organization, the operation
 * checking more itself); any other member takes no caller and is `null`. So a new operation that is not in the table does not
 * compile, and the authorization matrix in the tests reads the tables to cover it.
 */
import type { Permission } from '../domain/permissions.ts'
import type { Principal } from './auth.ts'
import { requirePermission } from './auth.ts'
import { noteRefusal, runOperation } from './audit-context.ts'

type Method = (...args: never[]) => unknown

/** What each operation of a service needs: a list for those given a caller, null for the rest. */
export type OperationTable<S> = {
  readonly [K in keyof S]: S[K] extends Method
    ? Parameters<S[K]>[0] extends Principal
      ? readonly Permission[]
      : null
    : null
}

/** The table a guarded service was made with, for the authorization matrix and the docs. */
export const OPERATIONS: unique symbol = Symbol('operations')

export interface GuardedOperations {
  readonly service: string
  readonly table: Readonly<Record<string, readonly Permission[] | null>>
}

/** Throws 403 naming the first permission of `needs` the caller lacks. */
export function authorize(caller: Principal, needs: readonly Permission[]): void {
  for (const permission of needs) requirePermission(caller, permission)
}

const isAsync = (fn: unknown) => typeof fn === 'function' && fn.constructor.name === 'AsyncFunction'

/**
 * The service with every operation of `table` checking its caller first. An async operation
 * refused answers a rejected promise, as it would for any other error it throws.
 */
export function guarded<S extends object>(service: string, table: NoInfer<OperationTable<S>>, impl: S): S {
  const out: Record<string | symbol, unknown> = { ...(impl as Record<string, unknown>) }
  for (const [name, needs] of Object.entries(table) as Array<[string, readonly Permission[] | null]>) {
    if (!needs) continue
    const fn = (impl as Record<string, unknown>)[name]
    if (typeof fn !== 'function') throw new Error(`${service}.${name} needs permissions but is not an operation`)
    const async = isAsync(fn)
    out[name] = function (this: unknown, caller: Principal, ...rest: unknown[]) {
      try {
        authorize(caller, needs)
      } catch (error) {
        // The audit log records every refusal (audit-context.ts).
        noteRefusal(service, name, String((error as Error).message), caller)
        if (async) return Promise.reject(error)
        throw error
      }
      return runOperation(service, name, caller, rest, () =>
        (fn as (...args: unknown[]) => unknown).call(out, caller, ...rest),
      )
    }
  }
  Object.defineProperty(out, OPERATIONS, { value: { service, table } satisfies GuardedOperations, enumerable: false })
  return out as S
}

/** The operations of a guarded service (undefined for one that is not). */
export function operationsOf(service: unknown): GuardedOperations | undefined {
  return (service as { [OPERATIONS]?: GuardedOperations } | null)?.[OPERATIONS]
}
