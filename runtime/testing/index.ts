/**
 * The plugin test kit: runs a trigger's matching, an action's handler or a webhook's verify and
 * receive in isolation, with the same payload resolution, contexts and directives as the engine,
 * and loads a plugin module exactly as the server does at start. The built-in plugins' tests use
 * it, and so can any plugin author (`import { runAction } from 'automaton/testing'`).
 *
 * It never opens a store, a server or a network connection, except `createTestServer`: the real
 * composition in process (server.ts), loaded only when a test creates one.
 */
import { pluginFromModule } from '../../core/plugin/load.ts'
import { createRegistry, type Registry } from '../../core/plugin/registry.ts'
import { type PluginDefinition, type PluginModule, sdk } from '../../core/plugin/sdk.ts'
import type { TestServer, TestServerOptions } from './server.ts'

export { sdk }
export {
  type ActionOutcome,
  type FakeHttp,
  resumeAction,
  type ResumeActionOptions,
  runAction,
  type RunActionOptions,
} from './action.ts'
export { matchTrigger, matchWait, TestKitError, triggerEvent } from './trigger.ts'
export { nextTicks, type PollRun, runPoll, type RunPollOptions } from './time.ts'
export type {
  DeliverOptions,
  TestRecord,
  TestResponse,
  TestRun,
  TestServer,
  TestServerOptions,
} from './server.ts'
export {
  answerWebhook,
  runWebhook,
  type RunWebhookOptions,
  webhookRequest,
  type WebhookRequestInit,
  type WebhookRun,
} from './webhook.ts'

export interface LoadedTestPlugin {
  readonly plugin: PluginDefinition
  /** A registry of the plugin (and `alongside`), checked as at start. */
  readonly registry: Registry
}

/**
 * Loads a plugin module as the server would (a default export that is a plugin or a function of
 * the SDK) and checks it; throws the same error the server would refuse to start with.
 * Pass `alongside` the plugins it depends on (for connector types it uses but does not define).
 *
 * @example
 * ```ts
 * const { plugin } = await loadPlugin(await import('./greeter.mjs'))
 * const greet = plugin.actions!.find((a) => a.type === 'greeter-greet')!
 * ```
 */
export async function loadPlugin(
  module: { default: PluginModule } | PluginModule,
  options: { source?: string; alongside?: readonly PluginDefinition[] } = {},
): Promise<LoadedTestPlugin> {
  const namespace = module && typeof module === 'object' && 'default' in module ? module : { default: module }
  const plugin = await pluginFromModule(namespace, options.source ?? 'the tested module')
  return { plugin, registry: createRegistry([...(options.alongside ?? []), plugin]) }
}

/**
 * Opens the kit's server: the real composition in process, on a temporary store and a manual
 * clock, with the built-in plugins and `plugins`. Its module (the whole system) is loaded here,
 * on first use, so tests that never open a server never load it.
 */
export async function createTestServer(options?: TestServerOptions): Promise<TestServer> {
  const server = await import('./server.ts')
  return server.createTestServer(options)
}
