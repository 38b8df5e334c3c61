/**
 * Calls into plugin code outside a run, for the API: an option loader (`POST
 * /v1/catalog/{triggers|actions}/{type}/options`) and a connector type's check (`test`). The host
 * (runtime/plugin-host/) gives each call its tools (the guarded HTTP client, crypto, the log, the
 * clock) and a deadline; the services decide what to call and what the answer means. It holds
 * no cache and checks no permission.
 */
import type { ConnectorData } from '../plugin/contexts.ts'
import type { AnyConnector } from '../plugin/definitions.ts'
import type { ConnectorTestResult, OptionLoaders, OptionsPage } from '../plugin/lifecycle.ts'

/** How long one plugin call may take before it is abandoned. */
export const PLUGIN_CALL_TIMEOUT_MS = 10_000

/** Why a plugin call failed: it threw (`failed`), a request it sent got no answer (`unreachable`), or it ran out of time. */
export type PluginCallFailure = 'failed' | 'unreachable' | 'timeout'

export class PluginCallError extends Error {
  override readonly name = 'PluginCallError'

  constructor(
    readonly reason: PluginCallFailure,
    message: string,
  ) {
    super(message)
  }
}

export interface OptionsCall {
  readonly organizationId: string
  /** The trigger or action type and the field, for the log. */
  readonly type: string
  readonly field: string
  readonly loader: OptionLoaders[string]
  /** The other fields' current values (the field's own value is not passed). */
  readonly values: Readonly<Record<string, unknown>>
  readonly connector: ConnectorData | null
  readonly search: string | null
  readonly cursor: string | null
}

export interface ConnectorTestCall {
  readonly organizationId: string
  readonly connectorId: string
  readonly definition: AnyConnector
  /** The connector's decrypted data. */
  readonly data: ConnectorData
}

export interface PluginCalls {
  /** One page of a loader, checked for shape; rejects with a PluginCallError. */
  loadOptions(call: OptionsCall): Promise<OptionsPage>
  /**
   * The connector type's check; null when the type declares none. A check that throws or runs
   * out of time answers `{ ok: false, message }`: it never rejects.
   */
  testConnector(call: ConnectorTestCall): Promise<ConnectorTestResult | null>
}
