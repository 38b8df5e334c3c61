/**
 * The audit log: appends a record to its organization's chain (inside the transaction of the act
 * it records), lists and follows an organization's records, verifies chains and prunes them.
 */
import type { AuditEvent, AuditEventFilter } from '../domain/audit.ts'
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { type AuditRow, auditDeliveries, auditEvents } from '../store/audit-events.ts'
import { apiKeys } from '../store/api-keys.ts'
import { users } from '../store/users.ts'
import { iso } from '../time.ts'
import { type ChainReport, linkHash, verifyRows } from './audit-chain.ts'
import type { AuditResource, AuditScope, OperatorAct } from './audit-context.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

/** Who acted: a person or a key (named from the database), or the operator (named by the command). */
export type AuditActActor = { kind: 'person' | 'key'; id: string } | { kind: 'operator'; id: string; name: string }

/** One act to record, before it has a place in a chain. */
export interface AuditAct {
  organizationId: string
  actor: AuditActActor
  operation: string
  resource: AuditResource
  outcome: AuditEvent['outcome']
  address: string | null
  userAgent: string | null
  details: Record<string, unknown>
}

export interface AuditLogDeps {
  store: Store
  clock: Clock
  ids: Ids
  /** The HMAC key of the chains (audit-key.ts). */
  key: CryptoKey
}

export interface AuditLog {
  /** Appends acts to their organizations' chains in the caller's transaction. */
  append(tx: SqlExecutor, acts: readonly AuditAct[]): Promise<void>
  /** The acts a request's scope stands for (one, or one per organization of a person signing in or out). */
  actsOf(
    tx: SqlExecutor,
    scope: AuditScope,
    outcome: AuditEvent['outcome'],
    details?: Record<string, unknown>,
  ): Promise<AuditAct[]>
  list(caller: Principal, page: PageRequest, filter: AuditEventFilter): Promise<Page<AuditEvent>>
  /** An organization's records after a sequence, oldest first (the stream). */
  after(caller: Principal, afterSeq: number, limit: number): Promise<AuditEvent[]>
  /** The organization's last sequence (where a stream without Last-Event-ID starts). */
  headOf(caller: Principal): Promise<number>
  verify(organizationId?: string): Promise<ChainReport[]>
  /**
   * Deletes records older than `before` in every organization; answers how many. With
   * `keepUndelivered` (an audit endpoint is configured) records the endpoint has not acknowledged stay.
   */
  prune(before: number, options?: { keepUndelivered?: boolean }): Promise<number>
}

export function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    organizationId: row.organization_id,
    seq: Number(row.seq),
    at: iso(Number(row.at)),
    actor: { kind: row.actor_kind as AuditEvent['actor']['kind'], id: row.actor_id, name: row.actor_name },
    operation: row.operation,
    // Unset strings are "" in answers (the specification's rule); the stored record keeps null.
    resource: { type: row.resource_type, id: row.resource_id ?? '' },
    outcome: row.outcome as AuditEvent['outcome'],
    address: row.address ?? '',
    userAgent: row.user_agent ?? '',
    details: JSON.parse(row.details),
    hash: row.hash,
  }
}

async function actorName(tx: SqlExecutor, act: AuditAct): Promise<string> {
  if (act.actor.kind === 'operator') return act.actor.name
  if (act.actor.kind === 'person') return (await users.byId(tx, act.actor.id))?.email ?? ''
  return (await apiKeys.byId(tx, act.organizationId, act.actor.id))?.name ?? ''
}

export function actorOf(principal: Principal): AuditActActor {
  return principal.kind === 'key'
    ? { kind: 'key', id: principal.keyId ?? '' }
    : { kind: 'person', id: principal.userId ?? '' }
}

/**
 * An operator's command: one act in each organization it concerns, the resource as the
 * transaction leaves it, and the machine it ran on (never a secret: the command puts none in).
 */
async function operatorActs(
  tx: SqlExecutor,
  scope: AuditScope,
  operator: OperatorAct,
  outcome: AuditEvent['outcome'],
  details: Record<string, unknown>,
): Promise<AuditAct[]> {
  const resource = (await operator.resourceOf?.(tx)) ?? scope.resource ?? { type: 'installation', id: null }
  const orgs = await operator.organizations(tx, resource)
  return orgs.map((organizationId) => ({
    organizationId,
    actor: { kind: 'operator', id: operator.user, name: operator.user },
    operation: scope.operation ?? scope.route(),
    resource,
    outcome,
    address: scope.address,
    userAgent: scope.userAgent,
    details: { host: operator.host, ...scope.details, ...details },
  }))
}

const time = (value: string | undefined) => (value === undefined ? undefined : Date.parse(value))

export function createAuditLog(deps: AuditLogDeps): AuditLog {
  const { store, clock, ids, key } = deps

  async function append(tx: SqlExecutor, acts: readonly AuditAct[]): Promise<void> {
    for (const act of acts) {
      const head = await auditEvents.lockHead(tx, store.dialect, act.organizationId)
      const content = {
        id: ids.next('aud'),
        organization_id: act.organizationId,
        seq: head.seq + 1,
        at: clock.now(),
        actor_kind: act.actor.kind,
        actor_id: act.actor.id,
        actor_name: await actorName(tx, act),
        operation: act.operation,
        resource_type: act.resource.type,
        resource_id: act.resource.id,
        outcome: act.outcome,
        address: act.address,
        user_agent: act.userAgent,
        details: JSON.stringify(act.details),
      }
      await auditEvents.append(tx, { ...content, hash: await linkHash(key, content, head.hash) })
    }
  }

  async function actsOf(
    tx: SqlExecutor,
    scope: AuditScope,
    outcome: AuditEvent['outcome'],
    details: Record<string, unknown> = {},
  ): Promise<AuditAct[]> {
    if (scope.operator) return operatorActs(tx, scope, scope.operator, outcome, details)
    const common = {
      outcome,
      address: scope.address,
      userAgent: scope.userAgent,
      details: { route: scope.route(), ...scope.details, ...details },
    }
    if (scope.person) {
      const { userId, operation } = scope.person
      const orgs = await users.memberships(tx, userId)
      return orgs.map((m) => ({
        ...common,
        organizationId: m.organization_id,
        actor: { kind: 'person', id: userId },
        operation,
        resource: { type: 'session', id: null },
      }))
    }
    const principal = scope.principal()
    if (!principal?.organizationId) return []
    const refused = outcome === 'refused' ? scope.refused : undefined
    const operation = refused?.operation ?? scope.operation ?? scope.route()
    const resource = scope.resource ?? { type: 'route', id: null }
    return [{ ...common, organizationId: principal.organizationId, actor: actorOf(principal), operation, resource }]
  }

  async function verifyOne(organizationId: string): Promise<ChainReport> {
    const head = (await auditEvents.head(store, organizationId)) ?? { seq: 0, hash: '', pruned_seq: 0, pruned_hash: '' }
    async function* pages() {
      let after = head.pruned_seq
      for (;;) {
        const rows = await auditEvents.after(store, organizationId, after, 500)
        if (rows.length === 0) return
        yield rows
        after = Number(rows[rows.length - 1].seq)
      }
    }
    return verifyRows(key, organizationId, { seq: head.pruned_seq, hash: head.pruned_hash }, pages(), head)
  }

  return guarded<AuditLog>(
    'audit',
    {
      append: null,
      actsOf: null,
      list: ['audit:read'],
      after: ['audit:read'],
      headOf: ['audit:read'],
      verify: null,
      prune: null,
    },
    {
      append,
      actsOf,
      async list(caller, page, filter) {
        const query = { ...filter, since: time(filter.since), until: time(filter.until) }
        const rows = await auditEvents.list(store, caller.organizationId, query, page.limit + 1, page.offset)
        return toPage(rows.map(toAuditEvent), page)
      },
      async after(caller, afterSeq, limit) {
        return (await auditEvents.after(store, caller.organizationId, afterSeq, limit)).map(toAuditEvent)
      },
      async headOf(caller) {
        return (await auditEvents.head(store, caller.organizationId))?.seq ?? 0
      },
      async verify(organizationId) {
        const orgs = organizationId ? [organizationId] : await auditEvents.organizations(store)
        const reports: ChainReport[] = []
        for (const org of orgs) reports.push(await verifyOne(org))
        return reports
      },
      async prune(before, options = {}) {
        let removed = 0
        for (const org of await auditEvents.organizations(store)) {
          const upTo = options.keepUndelivered ? await auditDeliveries.acknowledged(store, org) : undefined
          removed += await store.write((tx) => auditEvents.prune(tx, store.dialect, org, before, upTo))
        }
        return removed
      },
    },
  )
}
