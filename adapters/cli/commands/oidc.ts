/**
 * `oidc add|list|remove`: identity providers beyond the environment's (`AUTOMATON_OIDC_*`), and
 * `oidc require-sso`: whether an organization's members must sign in with one.
 */
import { parseGroupRoles } from '../../../core/domain/oidc.ts'
import { UsageError } from '../args.ts'
import { type Command, withSystem } from '../host.ts'
import { print, readSecretLine } from '../io.ts'

const groupRolesOf = (raw: string | undefined) => {
  try {
    return parseGroupRoles(raw ?? '')
  } catch (error) {
    throw new UsageError(`--group-roles: ${(error as Error).message}`)
  }
}

export const oidc: Command = async ({ sub, rest, flags, config, host }) => {
  if (sub === 'add') {
    const name = rest[0] ?? flags.name
    if (!name) throw new UsageError('oidc add needs a name')
    if (!flags.issuer || !flags['client-id']) throw new UsageError('oidc add needs --issuer <url> and --client-id <id>')
    const groupRoles = groupRolesOf(flags['group-roles'])
    const clientSecret = await readSecretLine(flags['client-secret-file'], 'client secret')
    await withSystem(host, config, async (s) => {
      const added = await s.oidc.registry.add({
        name,
        displayName: flags['display-name'] ?? name,
        issuer: flags.issuer,
        clientId: flags['client-id'],
        clientSecret,
        groupsClaim: flags['groups-claim'] ?? 'groups',
        groupRoles,
        scopes: (flags.scopes ?? '').split(/[\s,]+/).filter(Boolean),
        jit: flags.jit !== 'false',
      })
      print({ ...added, clientSecret: undefined })
    })
    return 0
  }
  if (sub === 'list') {
    await withSystem(host, config, async (s) =>
      print({ items: (await s.oidc.registry.list()).map((p) => ({ ...p, clientSecret: undefined })) }),
    )
    return 0
  }
  if (sub === 'remove') {
    const name = rest[0] ?? flags.name
    if (!name) throw new UsageError('oidc remove needs a name')
    await withSystem(host, config, async (s) => print(await s.oidc.registry.remove(name)))
    return 0
  }
  if (sub === 'require-sso') {
    if (!flags.org) throw new UsageError('oidc require-sso needs --org <id|name>')
    const required = flags.off === undefined && flags.required !== 'false'
    await withSystem(host, config, async (s) => print(await s.oidc.requireSso(flags.org, required)))
    return 0
  }
  throw new UsageError(`unknown command "oidc ${sub ?? ''}"`)
}
