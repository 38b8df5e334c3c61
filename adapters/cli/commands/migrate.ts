/**
 * `migrate`: applies the database migrations and the first start's loads (the shipped universe, the
 * templates' search index), as opening the serving system does, then exits without serving.
 */
import process from 'node:process'
import { createJsonLogger } from '../../../core/logger.ts'
import type { Command } from '../host.ts'
import { print } from '../io.ts'

export const migrate: Command = async ({ config, host }) => {
  const system = await host.openSystem(config, {
    logger: createJsonLogger('warn', (line) => process.stderr.write(line)),
    engine: false,
  })
  try {
    print({ migrated: true, store: system.store.dialect })
  } finally {
    await system.close()
  }
  return 0
}
