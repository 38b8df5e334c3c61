/** `universe import <file.csv>`: replaces the situation universe with the file's tickers (recorded in every organization's audit log). */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { UsageError } from '../args.ts'
import { type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'
import { asOperator } from '../operator.ts'

export const universe: Command = async ({ sub, rest, config, host }) => {
  if (sub !== 'import') throw new UsageError(`unknown command "universe ${sub ?? ''}"`)
  if (!rest[0]) throw new UsageError('universe import needs the CSV file')
  const csv = readFileSync(rest[0], 'utf8')
  await withSystem(host, config, async (s) => {
    const act = {
      command: 'universe import',
      resource: { type: 'universe', id: null },
      concerns: 'every organization' as const,
      details: { file: basename(rest[0]) },
    }
    print(await asOperator(s, act, () => s.universe.import(csv, rest[0])))
  })
  return 0
}
