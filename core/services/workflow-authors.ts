/**
 * Names instead of ids on what the workflow service answers: a version's author is a person, an
 * API key or a service account (the key's account, when it has one), and is shown by name.
 * Authors are looked up once per answer; an author since removed keeps its id alone.
 */
import type { Workflow } from '../domain/workflow.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { apiKeys } from '../store/api-keys.ts'
import { serviceAccounts } from '../store/service-accounts.ts'
import { users } from '../store/users.ts'

/** The display name of one author id (`usr_…`, `key_…`, `sa_…`); undefined when unknown. */
export async function authorName(db: SqlExecutor, organizationId: string, id: string): Promise<string | undefined> {
  if (id.startsWith('usr_')) return (await users.byId(db, id))?.name
  if (id.startsWith('sa_')) return (await serviceAccounts.byIdAnyState(db, id))?.name
  if (!id.startsWith('key_')) return undefined
  const key = await apiKeys.byId(db, organizationId, id)
  if (!key) return undefined
  const account = key.service_account_id ? await serviceAccounts.byIdAnyState(db, key.service_account_id) : undefined
  return account?.name ?? key.name
}

/** The workflows with `versionCreatedByName` set where the author is known. */
export async function withAuthorNames(db: SqlExecutor, list: Workflow[]): Promise<Workflow[]> {
  const names = new Map<string, string | undefined>()
  for (const w of list) {
    if (!names.has(w.versionCreatedBy))
      names.set(w.versionCreatedBy, await authorName(db, w.organizationId, w.versionCreatedBy))
  }
  return list.map((w) => {
    const name = names.get(w.versionCreatedBy)
    return name === undefined ? w : { ...w, versionCreatedByName: name }
  })
}
