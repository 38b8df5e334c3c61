/** Service accounts: non-human callers with an explicit permission list. */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import { isPermission, type Permission } from '../domain/permissions.ts'
import type { CreateServiceAccountBody, ServiceAccount, UpdateServiceAccountBody } from '../domain/service-account.ts'
import { badRequest, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Store } from '../ports/store.ts'
import { apiKeys } from '../store/api-keys.ts'
import { serviceAccounts, toServiceAccount } from '../store/service-accounts.ts'
import { assertDelegable } from './api-keys.ts'
import { actorOf, type AuthService, type Principal } from './auth.ts'
import { guarded } from './operations.ts'

function checkPermissions(permissions: readonly string[]): Permission[] {
  const unknown = permissions.map((p, i) => ({ p, i })).filter(({ p }) => !isPermission(p))
  if (unknown.length > 0) {
    throw badRequest(
      'unknown permissions',
      unknown.map(({ p, i }) => ({ path: `/permissions/${i}`, message: `unknown permission "${p}"` })),
    )
  }
  return [...new Set(permissions as Permission[])]
}

/** Service accounts: identities for machines, holding the permissions their keys may use. */
export interface ServiceAccountService {
  /** One service account, or a 404. */
  get(caller: Principal, id: string): Promise<ServiceAccount>
  /** The organization's service accounts, a page at a time. */
  list(caller: Principal, page: PageRequest): Promise<Page<ServiceAccount>>
  /** A new service account; the caller can give only what it holds. */
  create(caller: Principal, body: CreateServiceAccountBody): Promise<ServiceAccount>
  /** Changes what was given; the caller can give only what it holds. */
  update(caller: Principal, id: string, body: UpdateServiceAccountBody): Promise<ServiceAccount>
  /** Enables or disables the account (and so its keys). */
  setStatus(caller: Principal, id: string, status: 'active' | 'disabled'): Promise<ServiceAccount>
  /** Deleting an account revokes its keys; the records stay for audit. */
  remove(caller: Principal, id: string): Promise<{ id: string; deleted: true }>
}

export function createServiceAccountService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  auth: AuthService
}): ServiceAccountService {
  const { store, clock, ids } = deps

  async function load(caller: Principal, id: string) {
    const row = await serviceAccounts.byId(store, caller.organizationId, id)
    if (!row) throw notFound('service account')
    return row
  }
  const get = async (caller: Principal, id: string) => toServiceAccount(await load(caller, id))

  return guarded<ServiceAccountService>(
    'serviceAccounts',
    {
      get: ['service_account:read'],
      list: ['service_account:read'],
      create: ['service_account:write'],
      update: ['service_account:write'],
      setStatus: ['service_account:write'],
      remove: ['service_account:write'],
    },
    {
      get,

      async create(caller: Principal, body: CreateServiceAccountBody): Promise<ServiceAccount> {
        const permissions = checkPermissions(body.permissions)
        assertDelegable(caller, permissions)
        const id = ids.next('sa')
        await store.write((tx) =>
          serviceAccounts.insert(tx, {
            id,
            organizationId: caller.organizationId,
            name: body.name,
            description: body.description ?? '',
            permissions,
            createdBy: actorOf(caller),
            at: clock.now(),
          }),
        )
        return get(caller, id)
      },

      async list(caller: Principal, page: PageRequest): Promise<Page<ServiceAccount>> {
        return toPage((await serviceAccounts.list(store, caller.organizationId, page)).map(toServiceAccount), page)
      },

      async update(caller: Principal, id: string, body: UpdateServiceAccountBody): Promise<ServiceAccount> {
        // A caller acts only on accounts whose permissions it holds itself.
        assertDelegable(caller, checkPermissions(JSON.parse((await load(caller, id)).permissions)))
        const permissions = body.permissions ? checkPermissions(body.permissions) : undefined
        if (permissions) assertDelegable(caller, permissions)
        await store.write((tx) =>
          serviceAccounts.update(tx, caller.organizationId, id, { ...body, permissions }, clock.now()),
        )
        deps.auth.invalidate({ serviceAccountId: id })
        return get(caller, id)
      },

      async setStatus(caller: Principal, id: string, status: 'active' | 'disabled'): Promise<ServiceAccount> {
        const row = await load(caller, id)
        // A caller acts only on accounts whose permissions it holds (turning one back on hands them out again).
        assertDelegable(caller, checkPermissions(JSON.parse(row.permissions)))
        if (row.status !== status) {
          await store.write((tx) => serviceAccounts.setStatus(tx, caller.organizationId, id, status, clock.now()))
          deps.auth.invalidate({ serviceAccountId: id })
        }
        return get(caller, id)
      },

      /** Deleting an account revokes its keys; the records stay for audit. */
      async remove(caller: Principal, id: string): Promise<{ id: string; deleted: true }> {
        assertDelegable(caller, checkPermissions(JSON.parse((await load(caller, id)).permissions)))
        const at = clock.now()
        await store.write(async (tx) => {
          await serviceAccounts.softDelete(tx, caller.organizationId, id, at)
          await apiKeys.revokeForServiceAccount(tx, id, at)
        })
        deps.auth.invalidate({ serviceAccountId: id })
        return { id, deleted: true }
      },
    },
  )
}
