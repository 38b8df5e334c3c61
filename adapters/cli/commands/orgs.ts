/** `orgs create <name>` and `orgs list`. */
import { UsageError } from '../args.ts'
import { type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'

export const orgs: Command = async ({ sub, rest, flags, config, host }) => {
  if (sub === 'create') {
    const name = rest.join(' ').trim() || flags.name
    if (!name) throw new UsageError('orgs create needs a name')
    await withSystem(host, config, async (s) => print(await s.organizations.create(name)))
    return 0
  }
  if (sub === 'list') {
    await withSystem(host, config, async (s) => print({ items: await s.organizations.list() }))
    return 0
  }
  throw new UsageError(`unknown command "orgs ${sub ?? ''}"`)
}
