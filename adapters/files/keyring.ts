/**
 * The keyring a process opens at start: the master keys it was given (AUTOMATON_MASTER_KEY, and
 * AUTOMATON_MASTER_KEY_PREVIOUS during a rotation) or the data dir's key files, made into one
 * secret box, and checked against the key the installation seals with.
 */
import { join } from 'node:path'
import type { Config } from '../../core/config.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import {
  createSecretBox,
  decodeMasterKey,
  generateMasterKey,
  type Keyring,
  MasterKeyError,
  masterKeyId,
} from '../../core/security/secret-box.ts'
import { installationSettings, SEALING_KEY } from '../../core/store/installation-settings.ts'
import { loadOrCreateMasterKey, readMasterKeys } from './master-key.ts'

/** The master keys this process holds, first the one it was given, and where they come from. */
function masterKeysOf(config: Config, logger: Logger): { keys: Uint8Array[]; fromDataDir: boolean } {
  if (config.masterKey) {
    const previous = config.masterKeyPrevious
      ? [decodeMasterKey(config.masterKeyPrevious, 'AUTOMATON_MASTER_KEY_PREVIOUS')]
      : []
    return { keys: [decodeMasterKey(config.masterKey), ...previous], fromDataDir: false }
  }
  const { created } = loadOrCreateMasterKey(config.dataDir, generateMasterKey)
  if (created) logger.info('generated a master key', { file: join(config.dataDir, 'master.key') })
  if (config.databaseUrl) {
    logger.warn(
      'AUTOMATON_MASTER_KEY is not set: using the data dir key; every process of this deployment must use the same key',
    )
  }
  return {
    keys: readMasterKeys(config.dataDir).map((k) => decodeMasterKey(k, "the data dir's master key")),
    fromDataDir: true,
  }
}

/**
 * The secret box with every key this process holds. New secrets are sealed with the key the
 * installation names (stored at the first start, switched by `master-key rotate`); a process
 * that lacks that key stops here with a message instead of sealing with a key others cannot use.
 */
export async function openKeyring(config: Config, logger: Logger, store: Store, clock: Clock): Promise<Keyring> {
  const { keys, fromDataDir } = masterKeysOf(config, logger)
  const box = await createSecretBox(keys[0], {
    others: keys.slice(1),
    sealingKeyId: () => installationSettings.get(store, SEALING_KEY),
    reload: fromDataDir
      ? () => readMasterKeys(config.dataDir).map((k) => decodeMasterKey(k, "the data dir's master key"))
      : undefined,
  })
  // While a rotation is being prepared (AUTOMATON_MASTER_KEY_PREVIOUS), the previous key goes on sealing.
  const initial = !fromDataDir && keys.length > 1 ? await masterKeyId(keys[1]) : box.keyId
  await store.write((tx) => installationSettings.setIfAbsent(tx, SEALING_KEY, initial, clock.now()))
  const sealing = (await installationSettings.get(store, SEALING_KEY))!
  if (!(await box.has(sealing))) {
    throw new MasterKeyError(
      `this installation seals its secrets with master key ${sealing}, which this process was not given (it holds ${box.keyIds().join(', ')}): ` +
        'set AUTOMATON_MASTER_KEY to that key, or during a rotation AUTOMATON_MASTER_KEY=<new> and AUTOMATON_MASTER_KEY_PREVIOUS=<old>',
    )
  }
  return box
}
