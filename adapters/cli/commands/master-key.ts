/** `master-key generate` and `master-key rotate`. */
import { join } from 'node:path'
import type { Config } from '../../../core/config.ts'
import { decodeMasterKey, generateMasterKey, masterKeyId } from '../../../core/security/secret-box.ts'
import { rotateMasterKey } from '../../../core/services/master-key.ts'
import { promoteNextMasterKey, stageNextMasterKey } from '../../files/master-key.ts'
import { UsageError } from '../args.ts'
import { type CliSystem, type Command, withSystem } from '../host.ts'
import { print } from '../io.ts'
import { asOperator, type OperatorCommand } from '../operator.ts'

/**
 * The rotation in the audit log: in every organization (every secret moves), naming the new
 * key by its id (a digest, never the key), in the transaction that switches the sealing key.
 */
const rotationAct = async (target: Uint8Array): Promise<OperatorCommand> => ({
  command: 'master-key rotate',
  resource: { type: 'masterKey', id: await masterKeyId(target) },
  concerns: 'every organization',
})

/**
 * A data dir key: a new key is written beside the old one, every secret is re-sealed under it,
 * then it replaces the old file (a running server finds it there). A key from the environment:
 * the processes already hold the new key as AUTOMATON_MASTER_KEY and the old one as
 * AUTOMATON_MASTER_KEY_PREVIOUS; the rotation moves every secret to the new one.
 */
async function rotate(config: Config, s: CliSystem) {
  const oneTransaction = s.store.dialect === 'sqlite'
  const deps = { store: s.store, clock: s.clock, reader: s.secretBox }
  if (config.masterKey) {
    if (!config.masterKeyPrevious) {
      throw new UsageError(
        'AUTOMATON_MASTER_KEY is set, so the new key must reach every process first: run `automaton master-key generate`, ' +
          'restart every process with AUTOMATON_MASTER_KEY=<new key> and AUTOMATON_MASTER_KEY_PREVIOUS=<current key>, then run `master-key rotate` with the same two',
      )
    }
    const target = decodeMasterKey(config.masterKey)
    const result = await asOperator(s, await rotationAct(target), () =>
      rotateMasterKey(deps, target, { oneTransaction }),
    )
    return {
      masterKey: config.masterKey,
      ...result,
      then: 'restart every process without AUTOMATON_MASTER_KEY_PREVIOUS',
    }
  }
  const next = generateMasterKey()
  stageNextMasterKey(config.dataDir, next)
  const target = decodeMasterKey(next)
  const result = await asOperator(s, await rotationAct(target), () => rotateMasterKey(deps, target, { oneTransaction }))
  promoteNextMasterKey(config.dataDir)
  return { masterKey: next, ...result, file: join(config.dataDir, 'master.key') }
}

export const masterKey: Command = async ({ sub, config, host }) => {
  if (sub === 'generate') {
    print({ masterKey: generateMasterKey() })
    return 0
  }
  if (sub === 'rotate') {
    await withSystem(host, config, async (s) => print(await rotate(config, s)))
    return 0
  }
  throw new UsageError(`unknown command "master-key ${sub ?? ''}"`)
}
