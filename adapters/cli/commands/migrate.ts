/** `migrate`: applies the database migrations (opening the system does) and exits. */
import { type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'

export const migrate: Command = async ({ config, host }) => {
  await withSystem(host, config, async (s) => print({ migrated: true, store: s.store.dialect }))
  return 0
}
