/**
 * The operator's acts in the audit log: a command that changes something runs in an audit scope
 * whose actor is the operating-system user running it (kind `operator`, the machine in
 * `details.host`). The first write of the command carries its record, in the same transaction
 * (the store of the command system is the audited one), in each organization the command
 * concerns. A command that fails once it has begun to write is recorded as `failed`, right after.
 */
import { hostname, userInfo } from 'node:os'
import process from 'node:process'
import type { SqlExecutor } from '../../core/ports/store.ts'
import {
  type AuditResource,
  type AuditScope,
  auditScopes,
  type OperatorAct,
} from '../../core/services/audit-context.ts'
import { organizations } from '../../core/store/organizations.ts'
import { users } from '../../core/store/users.ts'
import type { CliSystem } from './host.ts'

/** Which organizations a command's record goes in. */
export type Concerns =
  | { organization: string }
  /** The organization the command creates (its resource), once it exists. */
  | 'created organization'
  /** Each organization the person belongs to (a password reset, a sign-in link). */
  | { person: string }
  /** An installation-wide change (an identity provider, the master key): every organization. */
  | 'every organization'

export interface OperatorCommand {
  /** The command as typed, `keys create`: the record's operation is `cli.keys.create`. */
  readonly command: string
  readonly resource: AuditResource
  readonly concerns: Concerns
  /** The command creates its resource: the first id it makes names it. */
  readonly creates?: boolean
  /** What the record says beside the machine; never a secret. */
  readonly details?: Record<string, unknown>
  readonly resourceOf?: OperatorAct['resourceOf']
}

/** The operating-system user running the command (USER when the system cannot say). */
export function operatorName(): string {
  try {
    return userInfo().username
  } catch {
    return process.env.USER || process.env.USERNAME || 'unknown'
  }
}

async function organizationsOf(tx: SqlExecutor, concerns: Concerns, resource: AuditResource): Promise<string[]> {
  if (concerns === 'every organization') return (await organizations.list(tx)).map((o) => o.id)
  if (concerns === 'created organization')
    return resource.id && (await organizations.byId(tx, resource.id)) ? [resource.id] : []
  if ('person' in concerns) return (await users.memberships(tx, concerns.person)).map((m) => m.organization_id)
  return [concerns.organization]
}

/** Runs a changing command's work as the operator's audited act. */
export async function asOperator<T>(s: CliSystem, command: OperatorCommand, work: () => Promise<T>): Promise<T> {
  const scope: AuditScope = {
    address: null,
    userAgent: null,
    route: () => `automaton ${command.command}`,
    principal: () => undefined,
    changes: true,
    operation: `cli.${command.command.split(' ').join('.')}`,
    resource: { ...command.resource },
    details: command.details ?? {},
    creating: command.creates ? { named: false } : undefined,
    operator: {
      user: operatorName(),
      host: hostname(),
      organizations: (tx, resource) => organizationsOf(tx, command.concerns, resource),
      resourceOf: command.resourceOf,
    },
  }
  try {
    return await auditScopes.run(scope, work)
  } catch (error) {
    if (scope.wrote) await recordFailure(s, scope, error)
    throw error
  }
}

/** A command that failed after it began to write: recorded as failed, on its own, with why. */
async function recordFailure(s: CliSystem, scope: AuditScope, error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error)
  await s.store
    .write(async (tx) => s.audit.append(tx, await s.audit.actsOf(tx, scope, 'failed', { error: reason })), {
      apart: true,
    })
    .catch((failure) =>
      s.logger.error('could not record the failed command in the audit log', {
        error: String(failure),
        operation: scope.operation,
      }),
    )
}
