/** `orgs create <name>`, `orgs list` and `orgs set <id|name> --fair-share <n>`. */
import { FAIR_SHARE_RANGE, fairShares } from '../../../core/store/flow-control.ts'
import { UsageError } from '../args.ts'
import { type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'
import { asOperator } from '../operator.ts'

/** The weight `--fair-share` gives: a whole number within FAIR_SHARE_RANGE. */
function fairShareOf(text: string | undefined): number {
  const weight = Number(text)
  if (text === undefined || !/^\d+$/.test(text) || weight < FAIR_SHARE_RANGE.min || weight > FAIR_SHARE_RANGE.max)
    throw new UsageError(
      `orgs set needs --fair-share <n>, a whole number from ${FAIR_SHARE_RANGE.min} to ${FAIR_SHARE_RANGE.max}`,
    )
  return weight
}

export const orgs: Command = async ({ sub, rest, flags, config, host }) => {
  if (sub === 'create') {
    const name = rest.join(' ').trim() || flags.name
    if (!name) throw new UsageError('orgs create needs a name')
    await withSystem(host, config, async (s) => {
      const act = {
        command: 'orgs create',
        resource: { type: 'organizations', id: null },
        concerns: 'created organization' as const,
        creates: true,
        details: { name },
      }
      print(await asOperator(s, act, () => s.organizations.create(name)))
    })
    return 0
  }
  if (sub === 'list') {
    await withSystem(host, config, async (s) => print({ items: await s.organizations.list() }))
    return 0
  }
  if (sub === 'set') {
    const idOrName = rest.join(' ').trim() || flags.org
    if (!idOrName) throw new UsageError('orgs set needs an organization (id or name)')
    const weight = fairShareOf(flags['fair-share'])
    await withSystem(host, config, async (s) => {
      const org = await s.organizations.resolve(idOrName)
      const act = {
        command: 'orgs set',
        resource: { type: 'organizations', id: org.id },
        concerns: { organization: org.id },
        details: { fairShare: weight },
      }
      await asOperator(s, act, () => s.store.write((tx) => fairShares.set(tx, org.id, weight)))
      print({ id: org.id, name: org.name, fairShare: weight })
    })
    return 0
  }
  throw new UsageError(`unknown command "orgs ${sub ?? ''}"`)
}
