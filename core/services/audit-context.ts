/**
 * The audit scope of one API request: who asks, from where, and the act being done. The HTTP
 * layer opens it (only for requests that carry credentials, so webhooks and other trigger
 * traffic pay nothing); `guarded` names the operation in it; the audited store writes the record
 * in the transaction of the act's first write (audit-store.ts). It travels with the request's
 * async work (AsyncLocalStorage), so none of the services has to pass it along.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { AuditOutcome } from '../domain/audit.ts'
import type { Principal } from './auth.ts'

export interface AuditResource {
  type: string
  id: string | null
}

export interface AuditScope {
  readonly address: string | null
  readonly userAgent: string | null
  /** The route, as `POST /v1/workflows/:id/run`: the operation's name when no service names one. */
  readonly route: () => string
  /** The caller the request authenticated as, if any (an unauthenticated request records nothing). */
  readonly principal: () => Principal | undefined
  /** This request changes something (its method is not GET): its act is recorded. */
  readonly changes: boolean
  operation?: string
  resource?: AuditResource
  /** A secret was read: recorded even though the method is GET. */
  secretRead?: boolean
  refused?: { operation: string; reason: string }
  /** A sign-in or sign-out: recorded in each organization of the person. */
  person?: { userId: string; operation: string }
  /** A write carries the record (set while it runs; cleared when it fails). */
  claimed?: boolean
  recorded?: boolean
  /** The request has answered: later writes of work it left behind are not its act. */
  closed?: boolean
  outcome?: AuditOutcome
}

const storage = new AsyncLocalStorage<AuditScope>()

export const auditScopes = {
  run<T>(scope: AuditScope, fn: () => T): T {
    return storage.run(scope, fn)
  },
  current(): AuditScope | undefined {
    return storage.getStore()
  },
}

/** `guarded` tells the scope which operation runs (the outermost one names the act). */
export function noteOperation(service: string, name: string, args: readonly unknown[]): void {
  const scope = storage.getStore()
  if (!scope || scope.closed || scope.operation) return
  scope.operation = `${service}.${name}`
  const id = args.find((a) => typeof a === 'string')
  scope.resource = { type: service, id: (id as string | undefined) ?? null }
  if (/^reveal/i.test(name)) scope.secretRead = true
}

/** `guarded` tells the scope a permission check refused an operation. */
export function noteRefusal(service: string, name: string, reason: string): void {
  const scope = storage.getStore()
  if (!scope || scope.closed || scope.refused) return
  scope.refused = { operation: `${service}.${name}`, reason }
}

/** Sign-in and sign-out: the person's act, recorded in every organization they belong to. */
export function notePersonAct(userId: string, operation: 'auth.signIn' | 'auth.signOut'): void {
  const scope = storage.getStore()
  if (!scope || scope.closed) return
  scope.person = { userId, operation }
}
