/** `credits grant`: adds (or, negative, takes away) AI credits of an organization. */
import { aiCredits } from '../../../core/store/ai-credits.ts'
import { UsageError } from '../args.ts'
import { type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'
import { asOperator } from '../operator.ts'

export const credits: Command = async ({ sub, flags, config, host }) => {
  if (sub !== 'grant') throw new UsageError(`unknown command "credits ${sub ?? ''}"`)
  if (!flags.org) throw new UsageError('credits grant needs --org <id|name>')
  const amount = Number(flags.amount)
  if (!Number.isSafeInteger(amount) || amount === 0)
    throw new UsageError('credits grant needs --amount <whole number of credits, not 0; negative takes credits away>')
  await withSystem(host, config, async (s) => {
    const org = await s.organizations.resolve(flags.org)
    const id = `acr_${crypto.randomUUID()}`
    const note = flags.note ?? 'cli'
    const act = {
      command: 'credits grant',
      resource: { type: 'aiCredits', id },
      concerns: { organization: org.id },
      details: { amount, note },
    }
    await asOperator(s, act, () =>
      s.store.write((tx) => aiCredits.grant(tx, { id, organizationId: org.id, amount, note, at: Date.now() })),
    )
    print({ organizationId: org.id, granted: amount, balance: await aiCredits.balance(s.store, org.id) })
  })
  return 0
}
