/** `audit verify [--org <id>]`: checks the audit chains; exits 1 naming the first broken link. */
import { UsageError } from '../args.ts'
import { type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'

export const audit: Command = async ({ sub, flags, config, host }) => {
  if (sub !== 'verify') throw new UsageError(`unknown command "audit ${sub ?? ''}"`)
  let intact = true
  await withSystem(host, config, async (s) => {
    const reports = await s.audit.verify(flags.org || undefined)
    intact = reports.every((r) => r.broken === null)
    print({ intact, organizations: reports })
  })
  return intact ? 0 : 1
}
