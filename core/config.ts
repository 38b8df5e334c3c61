/**
 * Configuration: every setting the service reads, with its default and meaning, declared by
 * concern in core/config/ (server, store and bus, security, engine, outbound requests, AI, chains
 * and x402, retention). `loadConfig` takes the environment as a plain record (main.ts passes the
 * process's), so tests build configurations without touching globals. docs/configuration.md lists
 * the same entries; a test keeps the two in step.
 */
import { AI_ENTRIES, type AiConfig } from './config/ai.ts'
import { CHAINS_ENTRIES, type ChainsConfig } from './config/chains.ts'
import { ENGINE_ENTRIES, type EngineConfig } from './config/engine.ts'
import { OUTBOUND_ENTRIES, type OutboundConfig } from './config/outbound.ts'
import { OIDC_ENTRIES, type OidcConfig } from './config/oidc.ts'
import { ConfigError, type ConfigEntryOf } from './config/parsers.ts'
import { RETENTION_ENTRIES, type RetentionConfig } from './config/retention.ts'
import { SECURITY_ENTRIES, type SecurityConfig } from './config/security.ts'
import { SERVER_ENTRIES, type ServerConfig } from './config/server.ts'
import { STORE_ENTRIES, type StoreConfig } from './config/store.ts'

export { ConfigError }

export interface Config
  extends ServerConfig,
    StoreConfig,
    SecurityConfig,
    EngineConfig,
    OutboundConfig,
    AiConfig,
    ChainsConfig,
    RetentionConfig,
    OidcConfig {}

export type ConfigEntry = ConfigEntryOf<Config>

export const CONFIG_ENTRIES: readonly ConfigEntry[] = [
  ...SERVER_ENTRIES,
  ...STORE_ENTRIES,
  ...SECURITY_ENTRIES,
  ...ENGINE_ENTRIES,
  ...OUTBOUND_ENTRIES,
  ...AI_ENTRIES,
  ...CHAINS_ENTRIES,
  ...RETENTION_ENTRIES,
  ...OIDC_ENTRIES,
]

export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const out: Record<string, unknown> = {}
  for (const entry of CONFIG_ENTRIES) {
    const raw = env[entry.env]
    out[entry.key] = entry.parse(raw === undefined ? entry.default : raw.trim(), entry.env)
  }
  if (out.aiBaseUrl && !out.aiModel)
    throw new ConfigError('AUTOMATON_AI_BASE_URL needs AUTOMATON_AI_MODEL: the model to ask for')
  return out as unknown as Config
}

/**
 * An operator setting by its environment variable name (what a webhook's `auth.setting` names):
 * the value of a configuration entry when the name is one, else the variable itself; null when
 * unset or empty.
 */
export function settingOf(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string | null {
  const entry = CONFIG_ENTRIES.find((e) => e.env === name)
  const value = entry ? config[entry.key] : env[name]?.trim()
  return typeof value === 'string' && value !== '' ? value : null
}
