/**
 * `oidc add|list|remove`: identity providers beyond the environment's (`AUTOMATON_OIDC_*`), and
 * `oidc require-sso`: whether an organization's members must sign in with one.
 */
import { parseGroupRoles } from '../../../core/domain/oidc.ts'
import { UsageError } from '../args.ts'
import { conflict, notFound } from '../../../core/errors.ts'
import { DEFAULT_PROVIDER } from '../../../core/services/oidc-providers.ts'
import { type CliSystem, type Command, withSystem } from '../host.ts'
import { print, readSecretLine } from '../io.ts'
import { asOperator } from '../operator.ts'

const groupRolesOf = (raw: string | undefined) => {
  try {
    return parseGroupRoles(raw ?? '')
  } catch (error) {
    throw new UsageError(`--group-roles: ${(error as Error).message}`)
  }
}

/** A provider serves sign-in to any organization: its addition and removal are recorded in every one. */
const EVERY = 'every organization' as const

/** Whether the CLI added a provider of this name (the environment's, `default`, is not one). */
const providerExists = async (s: CliSystem, name: string) =>
  name !== DEFAULT_PROVIDER && (await s.oidc.registry.list()).some((provider) => provider.name === name)

export const oidc: Command = async ({ sub, rest, flags, config, host }) => {
  if (sub === 'add') {
    const name = rest[0] ?? flags.name
    if (!name) throw new UsageError('oidc add needs a name')
    if (!flags.issuer || !flags['client-id']) throw new UsageError('oidc add needs --issuer <url> and --client-id <id>')
    const groupRoles = groupRolesOf(flags['group-roles'])
    const clientSecret = await readSecretLine(flags['client-secret-file'], 'client secret')
    await withSystem(host, config, async (s) => {
      // Refused before anything is written, so that the audit log records only a provider added.
      if (await providerExists(s, name)) throw conflict(`a provider named ${name} exists`)
      const act = {
        command: 'oidc add',
        resource: { type: 'oidcProviders', id: name },
        concerns: EVERY,
        details: { issuer: flags.issuer, clientId: flags['client-id'], groupRoles: flags['group-roles'] ?? '' },
      }
      const add = () =>
        s.oidc.registry.add({
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
      print({ ...(await asOperator(s, act, add)), clientSecret: undefined })
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
    await withSystem(host, config, async (s) => {
      if (!(await providerExists(s, name))) throw notFound('identity provider')
      const act = { command: 'oidc remove', resource: { type: 'oidcProviders', id: name }, concerns: EVERY }
      print(await asOperator(s, act, () => s.oidc.registry.remove(name)))
    })
    return 0
  }
  if (sub === 'require-sso') {
    if (!flags.org) throw new UsageError('oidc require-sso needs --org <id|name>')
    const required = flags.off === undefined && flags.required !== 'false'
    await withSystem(host, config, async (s) => {
      const org = await s.organizations.resolve(flags.org)
      const act = {
        command: 'oidc require-sso',
        resource: { type: 'organizations', id: org.id },
        concerns: { organization: org.id },
        details: { ssoRequired: required },
      }
      print(await asOperator(s, act, () => s.oidc.requireSso(org.id, required)))
    })
    return 0
  }
  throw new UsageError(`unknown command "oidc ${sub ?? ''}"`)
}
