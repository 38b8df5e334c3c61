import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CONFIG_ENTRIES, ConfigError, loadConfig } from '../../core/config.ts'

describe('configuration', () => {
  it('has production defaults', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({
      port: 8080,
      dataDir: './data',
      databaseUrl: null,
      natsUrl: null,
      maxBodyBytes: 1048576,
      sqliteSynchronous: 'full',
      minScheduleIntervalMs: 60000,
      consecutiveFailuresPause: 5,
    })
    expect(c.allowPrivateTargets).toEqual([])
  })

  it('reads values and lists', () => {
    const c = loadConfig({
      PORT: '9000',
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/8, localhost',
      AUTOMATON_SQLITE_SYNCHRONOUS: 'NORMAL',
    })
    expect(c.port).toBe(9000)
    expect(c.allowPrivateTargets).toEqual(['127.0.0.1/8', 'localhost'])
    expect(c.sqliteSynchronous).toBe('normal')
  })

  it('refuses bad values with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'x' })).toThrow(ConfigError)
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT must be an integer between 0 and 65535/)
    expect(() => loadConfig({ AUTOMATON_LOG_LEVEL: 'loud' })).toThrow(/AUTOMATON_LOG_LEVEL must be one of/)
  })

  it('is documented: docs/configuration.md lists every variable with its default', () => {
    const text = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'configuration.md'), 'utf8')
    for (const entry of CONFIG_ENTRIES) {
      expect(text).toContain(`\`${entry.env}\``)
      if (entry.default) expect(text).toContain(entry.default)
    }
  })
})
