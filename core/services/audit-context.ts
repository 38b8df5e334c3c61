/**
 * The audit scope of one API request: who asks, from where, and the act being done. The HTTP
 * layer opens it (only for requests that carry credentials, so webhooks and other trigger
 * traffic pay nothing); `guarded` names the operation in it; the audited store writes the record
 * in the transaction of the act's first write (audit-store.ts). It travels with the request's
 * async work (AsyncLocalStorage), so none of the services has to pass it along. A creation's
 * record names what it made (the first id it makes, through `auditedIds`); an operation refused
 * or run after the request answered (a builder chat's tool) is recorded as an act of its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { AuditOutcome } from '../domain/audit.ts'
import type { IdPrefix, Ids } from '../ports/ids.ts'
import type { SqlExecutor } from '../ports/store.ts'
import type { Principal } from './auth.ts'

export interface AuditResource {
  type: string
  id: string | null
}

/** A command of the operator's CLI: who ran it on which machine, and where it is recorded. */
export interface OperatorAct {
  /** The operating-system user who ran the command. */
  readonly user: string
  readonly host: string
  /** The organizations the act is recorded in, read in the transaction that carries the record. */
  readonly organizations: (tx: SqlExecutor, resource: AuditResource) => Promise<string[]>
  /** The resource as the transaction leaves it, when only the database knows it (the person `users create` made or found). */
  readonly resourceOf?: (tx: SqlExecutor) => Promise<AuditResource | undefined>
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
  /** The operation creates something: the first id it makes names it (`noteMintedId`). */
  creating?: { named: boolean }
  /** More to record beside the route (the parent a creation was made under). */
  details?: Record<string, unknown>
  /**
   * Records a refusal of an operation the request did not name (a tool of the builder chat, or
   * one refused after the request answered) in a transaction of its own.
   */
  recordRefusal?: (refusal: { caller: Principal; operation: string; reason: string }) => Promise<void>
  refused?: { operation: string; reason: string }
  /** A sign-in or sign-out: recorded in each organization of the person. */
  person?: { userId: string; operation: string }
  /** An operator's command (the CLI): recorded in each organization it concerns. */
  operator?: OperatorAct
  /** A write carries the record (set while it runs; cleared when it fails). */
  claimed?: boolean
  /** A write of the act began, whether or not it committed (a command that failed after it is recorded as failed). */
  wrote?: boolean
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

/**
 * `guarded` runs each allowed operation through this. Within a request, the outermost operation
 * names the request's act. One called after its request answered (a builder chat's tool, while
 * the answer streams) is an act of its own: it runs in a scope of its own, whose first write
 * carries its record, as a request's would.
 */
export function runOperation<T>(
  service: string,
  name: string,
  caller: Principal,
  args: readonly unknown[],
  call: () => T,
): T {
  const scope = storage.getStore()
  // Only a change's leftover work is an act (a stream a GET answered keeps reading, unrecorded).
  if (!scope?.closed || !scope.changes || !caller.organizationId) {
    noteOperation(service, name, args)
    return call()
  }
  const own: AuditScope = {
    address: scope.address,
    userAgent: scope.userAgent,
    route: scope.route,
    principal: () => caller,
    changes: true,
    recordRefusal: scope.recordRefusal,
  }
  return storage.run(own, () => {
    noteOperation(service, name, args)
    return call()
  })
}

/** `guarded` tells the scope which operation runs (the outermost one names the act). */
export function noteOperation(service: string, name: string, args: readonly unknown[]): void {
  const scope = storage.getStore()
  if (!scope || scope.closed || scope.operation) return
  scope.operation = `${service}.${name}`
  const id = args.find((a) => typeof a === 'string')
  scope.resource = { type: service, id: (id as string | undefined) ?? null }
  if (/^reveal/i.test(name)) scope.secretRead = true
  if (CREATION.test(name)) {
    scope.creating = { named: false }
    if (id !== undefined) scope.details = { parentId: id }
  }
}

/**
 * Operations named so create something (`workflows.create`, `people.invite`, `templates.fork`,
 * a hook delivery's `replay`): the record names the new resource, and what it was made from or
 * under (the operation's first id) goes in `details.parentId`.
 */
const CREATION = /^(create|add|issue|invite|fork|register|import|duplicate|clone|replay)/
/** Ids a creation makes along the way that are not what it creates (events, notifications, the record's own). */
const INCIDENTAL: ReadonlySet<IdPrefix> = new Set<IdPrefix>(['aud', 'evt', 'req', 'msg', 'ntf', 'job', 'wkr'])

/** The first id a creation makes is the created resource's: its record names it. */
export function noteMintedId(prefix: IdPrefix, id: string): void {
  const scope = storage.getStore()
  if (!scope?.creating || scope.creating.named || scope.closed || INCIDENTAL.has(prefix)) return
  scope.creating.named = true
  scope.resource = { type: scope.resource?.type ?? prefix, id }
}

/** The ids every service makes, telling the audit scope of a creation what it made. */
export function auditedIds(ids: Ids): Ids {
  return Object.freeze({
    next(prefix: IdPrefix) {
      const id = ids.next(prefix)
      noteMintedId(prefix, id)
      return id
    },
  })
}

/**
 * `guarded` tells the scope a permission check refused an operation. The request's own operation
 * refused is recorded when the request answers (audit-scope.ts); any other (an operation called
 * by one that was allowed, such as a chat's tool, or one called after the answer) is recorded
 * at once, as its own act.
 */
export function noteRefusal(service: string, name: string, reason: string, caller?: Principal): void {
  const scope = storage.getStore()
  if (!scope) return
  const operation = `${service}.${name}`
  if (!scope.closed && scope.operation === undefined) {
    scope.refused ??= { operation, reason }
    return
  }
  if (caller?.organizationId && scope.recordRefusal) void scope.recordRefusal({ caller, operation, reason })
}

/** Sign-in and sign-out: the person's act, recorded in every organization they belong to. */
export function notePersonAct(userId: string, operation: 'auth.signIn' | 'auth.signOut'): void {
  const scope = storage.getStore()
  if (!scope || scope.closed) return
  scope.person = { userId, operation }
}
