/** What the agent service's use cases share: their dependencies and the limits of an agent run. */
import type { Registry } from '../plugin/registry.ts'
import type { Clock } from '../ports/clock.ts'
import type { Dispatcher } from '../ports/engine.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import type { ApiKeyService } from './api-keys.ts'
import type { AuthService } from './auth.ts'
import type { RunService } from './runs.ts'
import type { WorkflowService } from './workflows.ts'

/** A worker session outlives no run longer than this, even if the run's end were never recorded. */
export const SESSION_MAX_MS = 6 * 60 * 60 * 1000
export const DEFAULT_MAX_STEPS = 8

export interface AgentServiceDeps {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  registry: Registry
  secretBox: SecretBox
  auth: AuthService
  apiKeys: ApiKeyService
  workflows: WorkflowService
  runs: RunService
  dispatcher: Dispatcher
  /** Throws 503 when no model is configured. */
  requireModel: () => void
  /** AUTOMATON_AGENTS_DISABLED. */
  disabled: ReadonlySet<string>
  /** The API's own request handler, for worker sessions' calls. */
  api: (request: Request) => Promise<Response>
}
