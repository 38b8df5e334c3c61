/**
 * Dynamic options: a payload field's allowed values, loaded by the plugin that defines the
 * trigger or action (its `options` loaders) through the plugin-calls port. Pages are cached for a
 * minute per organization, type, field, connector and inputs; the service also says whether the
 * field's current value is still offered, so an editor keeps a selection across reloads and can
 * say when it disappeared.
 */
import type { OptionsAnswer, OptionsBody } from '../domain/catalog-options.ts'
import { BoundedMap } from '../bounded-map.ts'
import { AppError, badRequest, ConnectorUnavailableError, notFound } from '../errors.ts'
import { canonicalJson } from '../json.ts'
import type { ConnectorData } from '../plugin/contexts.ts'
import type { OptionItem, OptionsPage } from '../plugin/lifecycle.ts'
import type { AnyAction, AnyTrigger, Registry } from '../plugin/registry.ts'
import type { Clock } from '../ports/clock.ts'
import { PluginCallError, type PluginCalls } from '../ports/plugin-calls.ts'
import type { Principal } from './auth.ts'
import type { ConnectorService } from './connectors.ts'
import { authorize, guarded, type OperationTable } from './operations.ts'

/** How long a loaded page is served again without calling the plugin. */
export const OPTIONS_TTL_MS = 60_000
const MAX_PAGES = 2000
const MAX_LISTS = 2000

export type OptionsKind = 'trigger' | 'action'

export interface CatalogOptionsDeps {
  registry: Registry
  connectors: Pick<ConnectorService, 'get' | 'resolve'>
  calls: PluginCalls
  clock: Clock
}

export interface CatalogOptionsService {
  /**
   * One page of a field's allowed values. Needs `action:read` (as the catalog), and
   * `connector:read` when the body names a connector.
   */
  load(caller: Principal, kind: OptionsKind, type: string, body: OptionsBody): Promise<OptionsAnswer>
}

const OPERATIONS: OperationTable<CatalogOptionsService> = { load: ['action:read'] }

interface Cached {
  readonly at: number
  readonly page: OptionsPage
}

/** The values offered by the pages of one list (one search) loaded since its first page was. */
interface Offered {
  at: number
  readonly values: Set<string>
}

export function createCatalogOptionsService(deps: CatalogOptionsDeps): CatalogOptionsService {
  const pages = new BoundedMap<string, Cached>(MAX_PAGES)
  const lists = new BoundedMap<string, Offered>(MAX_LISTS)

  async function page(caller: Principal, kind: OptionsKind, def: AnyTrigger | AnyAction, body: OptionsBody) {
    const values = { ...(body.values ?? {}) }
    delete values[body.field]
    const list = canonicalJson([caller.organizationId, kind, def.type, body.field, body.connectorId ?? null, values])
    const key = canonicalJson([list, body.search ?? null, body.cursor ?? null])
    const now = deps.clock.now()
    const cached = pages.get(key)
    if (cached && now - cached.at < OPTIONS_TTL_MS) return { list, page: cached.page }
    const connector = await connectorOf(caller, def, body.connectorId)
    const loaded = await call(deps, {
      organizationId: caller.organizationId,
      type: def.type,
      field: body.field,
      loader: def.options![body.field],
      values,
      connector,
      search: body.search ?? null,
      cursor: body.cursor ?? null,
    })
    pages.delete(key)
    pages.set(key, { at: deps.clock.now(), page: loaded })
    return { list, page: loaded }
  }

  async function connectorOf(caller: Principal, def: AnyTrigger | AnyAction, id: string | undefined) {
    if (id === undefined) return null
    authorize(caller, ['connector:read'])
    await deps.connectors.get(caller, id)
    if (!def.connector) return null
    try {
      return (await deps.connectors.resolve(caller.organizationId, { id }, def.connector.type)).data as ConnectorData
    } catch (error) {
      if (error instanceof ConnectorUnavailableError)
        throw badRequest(error.message, [{ path: '/connectorId', message: error.message }])
      throw error
    }
  }

  /** Remembers the page's values under its list and answers whether `selected` is among them. */
  function offered(list: string, search: string | null, first: boolean, items: readonly OptionItem[]) {
    const key = canonicalJson([list, search])
    const now = deps.clock.now()
    let seen = lists.get(key)
    if (first || !seen || now - seen.at >= OPTIONS_TTL_MS) seen = { at: now, values: new Set() }
    for (const item of items) seen.values.add(canonicalJson(item.value))
    seen.at = now
    lists.delete(key)
    lists.set(key, seen)
    return (value: unknown) =>
      Array.isArray(value)
        ? value.every((v) => seen.values.has(canonicalJson(v)))
        : seen.values.has(canonicalJson(value))
  }

  return guarded<CatalogOptionsService>('catalogOptions', OPERATIONS, {
    async load(caller, kind, type, body) {
      const def = kind === 'trigger' ? deps.registry.trigger(type) : deps.registry.action(type)
      if (!def) throw notFound(`${kind} type`)
      if (!def.options || !Object.hasOwn(def.options, body.field)) throw notFound(`options of field ${body.field}`)
      const { list, page: loaded } = await page(caller, kind, def, body)
      const isOffered = offered(list, body.search ?? null, body.cursor === undefined, loaded.items)
      const value = body.values?.[body.field]
      return {
        items: loaded.items.map((item) => ({ label: item.label, value: item.value })),
        // Unset strings are "" in answers (the specification's rule): "" on the last page.
        nextCursor: loaded.nextCursor ?? '',
        selected: value === undefined || value === null ? null : { value, offered: isOffered(value) },
      }
    },
  })
}

/** The port's failure as the API's: 504 out of time, 502 unreachable, 400 with the plugin's message. */
async function call(deps: CatalogOptionsDeps, request: Parameters<PluginCalls['loadOptions']>[0]) {
  try {
    return await deps.calls.loadOptions(request)
  } catch (error) {
    if (!(error instanceof PluginCallError)) throw error
    if (error.reason === 'timeout')
      throw new AppError(504, `the option loader gave no answer in time: ${error.message}`)
    if (error.reason === 'unreachable') throw new AppError(502, `the platform could not be reached: ${error.message}`)
    throw badRequest(error.message, [{ path: '/field', message: error.message }])
  }
}
