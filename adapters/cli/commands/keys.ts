/**
 * `keys create`: mints an owner key of an organization; the raw key is printed once, in "key"
 * (the audit log records the key's id and name, never the key).
 */
import { SCOPES, type Scope } from '../../../core/domain/permissions.ts'
import { iso } from '../../../core/time.ts'
import { UsageError } from '../args.ts'
import { type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'
import { asOperator } from '../operator.ts'

export const keys: Command = async ({ sub, flags, config, host }) => {
  if (sub !== 'create') throw new UsageError(`unknown command "keys ${sub ?? ''}"`)
  if (!flags.org) throw new UsageError('keys create needs --org <id|name>')
  if (!flags.name) throw new UsageError('keys create needs --name <name>')
  const scope = (flags.scope ?? 'read-write') as Scope
  if (!SCOPES.includes(scope)) throw new UsageError('--scope must be read or read-write')
  const expiresAt = flags['expires-at'] ? Date.parse(flags['expires-at']) : null
  if (expiresAt !== null && (Number.isNaN(expiresAt) || expiresAt <= Date.now()))
    throw new UsageError('--expires-at must be a future RFC 3339 time')
  await withSystem(host, config, async (s) => {
    const org = await s.organizations.resolve(flags.org)
    const act = {
      command: 'keys create',
      resource: { type: 'apiKeys', id: null },
      concerns: { organization: org.id },
      creates: true,
      details: { name: flags.name, scope, role: 'owner', expiresAt: expiresAt === null ? null : iso(expiresAt) },
    }
    print(
      await asOperator(s, act, () =>
        s.apiKeys.issue({
          organizationId: org.id,
          name: flags.name,
          description: flags.description,
          scope,
          role: 'owner',
          serviceAccountId: null,
          userId: null,
          createdBy: 'cli',
          expiresAt,
        }),
      ),
    )
  })
  return 0
}
