/**
 * The store every service writes through, recording audited acts: when a request's scope has an
 * act to record (a change through the API, a secret read, a sign-in or sign-out), its first
 * write after the operation began carries the record, in the same transaction as the change. A
 * write outside such a scope (the engine, triggers, the hook outbox) passes straight through.
 */
import { type SqlExecutor, type Store, serialOnly, type WriteOptions } from '../ports/store.ts'
import { type AuditScope, auditScopes } from './audit-context.ts'
import type { AuditLog } from './audit-log.ts'

/** Whether the scope's act is due and nothing carries its record yet. */
export function awaitsRecord(scope: AuditScope | undefined): scope is AuditScope {
  if (!scope || scope.closed || scope.claimed || scope.recorded) return false
  if (scope.person || scope.operator) return true
  return (
    scope.operation !== undefined && (scope.changes || scope.secretRead === true) && scope.principal() !== undefined
  )
}

export function auditedStore(store: Store, log: () => AuditLog): Store {
  function write<T>(work: (tx: SqlExecutor) => Promise<T>, options?: WriteOptions): Promise<T> {
    const scope = auditScopes.current()
    if (!awaitsRecord(scope) || options?.apart) return store.write(work, options)
    scope.claimed = true
    scope.wrote = true
    const recorded = async (tx: SqlExecutor) => {
      // The record locks its organization's chain head: go serial before the work, not after it,
      // so that a concurrent batch is not run again for it (a pure run would compute twice).
      serialOnly(tx)
      const result = await work(tx)
      await log().append(tx, await log().actsOf(tx, scope, 'allowed'))
      return result
    }
    return store.write(recorded, options).then(
      (result) => {
        scope.recorded = true
        return result
      },
      (error) => {
        scope.claimed = false
        throw error
      },
    )
  }
  return Object.assign(Object.create(store) as Store, {
    write,
    all: store.all.bind(store),
    get: store.get.bind(store),
    run: store.run.bind(store),
    migrate: store.migrate.bind(store),
    compact: store.compact.bind(store),
    ping: store.ping.bind(store),
    close: store.close.bind(store),
    dialect: store.dialect,
  })
}
