/**
 * `users create`, `users reset-password` and `users sign-in-link`: people who sign in with an email
 * and a password, and the operator's one-time link (the break-glass when single sign-on is required).
 */
import { ROLES, type Role } from '../../../core/domain/permissions.ts'
import type { SqlExecutor } from '../../../core/ports/store.ts'
import { users as userRows } from '../../../core/store/users.ts'
import { UsageError } from '../args.ts'
import { type CliSystem, type Command, withSystem } from '../host.ts'
import { print, readSecretLine } from '../io.ts'
import { asOperator, type OperatorCommand } from '../operator.ts'

/** A command on one person: recorded in each organization they belong to (never the password or the link). */
async function personAct(s: CliSystem, command: string, email: string): Promise<OperatorCommand> {
  const person = await userRows.byEmail(s.store, email.trim())
  return {
    command,
    resource: { type: 'users', id: person?.id ?? null },
    concerns: { person: person?.id ?? '' },
    details: { email: person?.email ?? email.trim() },
  }
}

export const users: Command = async ({ sub, flags, config, host }) => {
  if (sub === 'create') {
    if (!flags.email) throw new UsageError('users create needs --email <address>')
    if (!flags.org) throw new UsageError('users create needs --org <id|name>')
    const role = (flags.role ?? 'owner') as Role
    if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`)
    const password = await readSecretLine(flags['password-file'], 'password')
    await withSystem(host, config, async (s) => {
      const org = await s.organizations.resolve(flags.org)
      const email = flags.email.trim().toLowerCase()
      const act = {
        command: 'users create',
        resource: { type: 'users', id: null },
        concerns: { organization: org.id },
        details: { email, role },
        resourceOf: async (tx: SqlExecutor) => ({ type: 'users', id: (await userRows.byEmail(tx, email))?.id ?? null }),
      }
      print(
        await asOperator(s, act, () =>
          s.people.createUser({ email: flags.email, name: flags.name ?? '', password, organizationId: org.id, role }),
        ),
      )
    })
    return 0
  }
  if (sub === 'reset-password') {
    if (!flags.email) throw new UsageError('users reset-password needs --email <address>')
    const password = await readSecretLine(flags['password-file'], 'new password')
    await withSystem(host, config, async (s) => {
      const act = await personAct(s, 'users reset-password', flags.email)
      print(await asOperator(s, act, () => s.people.resetPassword(flags.email, password)))
    })
    return 0
  }
  if (sub === 'sign-in-link') {
    if (!flags.email) throw new UsageError('users sign-in-link needs --email <address>')
    await withSystem(host, config, async (s) => {
      const act = await personAct(s, 'users sign-in-link', flags.email)
      const { token, expiresAt } = await asOperator(s, act, () => s.oidc.createSignInLink(flags.email))
      const base = config.publicUrl ?? `http://localhost:${config.port}`
      print({ url: `${base}/v1/auth/sign-in-link?token=${encodeURIComponent(token)}`, expiresAt })
    })
    return 0
  }
  throw new UsageError(`unknown command "users ${sub ?? ''}"`)
}
