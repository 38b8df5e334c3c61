/**
 * The host's side of the plugin-calls port: runs an option loader or a connector check with its
 * tools and a deadline, and says why it failed. A call that ignores its signal is still
 * abandoned at the deadline (its late answer is dropped).
 */
import { errorMessage } from '../../core/errors.ts'
import type { HandlerTools, OptionItem, OptionsPage } from '../../core/plugin/lifecycle.ts'
import {
  type ConnectorTestCall,
  type OptionsCall,
  PLUGIN_CALL_TIMEOUT_MS,
  PluginCallError,
  type PluginCalls,
} from '../../core/ports/plugin-calls.ts'
import { deadline, handlerTools, type PluginHostDeps } from './tools.ts'

export interface PluginCallDeps extends PluginHostDeps {
  /** Default 10 s. */
  timeoutMs?: number
}

/** Items one page may hold; a loader answering more is refused rather than truncated silently. */
const MAX_ITEMS = 1000

export function createPluginCalls(deps: PluginCallDeps): PluginCalls {
  const timeoutMs = deps.timeoutMs ?? PLUGIN_CALL_TIMEOUT_MS
  return {
    async loadOptions(call: OptionsCall) {
      const fields = { organizationId: call.organizationId, type: call.type, field: call.field }
      const answer = await callWithin(deps, timeoutMs, fields, (tools) =>
        call.loader({
          ...tools,
          values: call.values,
          connector: call.connector,
          search: call.search,
          cursor: call.cursor,
        }),
      )
      return checkPage(answer)
    },

    async testConnector(call: ConnectorTestCall) {
      const test = call.definition.test
      if (!test) return null
      const fields = {
        organizationId: call.organizationId,
        connectorId: call.connectorId,
        connectorType: call.definition.type,
      }
      try {
        const answer = await callWithin(deps, timeoutMs, fields, (tools) =>
          test.call(call.definition, { ...tools, data: call.data }),
        )
        if (!answer || typeof answer !== 'object' || typeof answer.ok !== 'boolean')
          return { ok: false, message: 'the check answered no { ok, message }' }
        return typeof answer.message === 'string' ? { ok: answer.ok, message: answer.message } : { ok: answer.ok }
      } catch (error) {
        return { ok: false, message: errorMessage(error) }
      }
    },
  }
}

/**
 * Runs `fn` with handler tools until `timeoutMs`. A throw is `unreachable` when it is (or was
 * caused by) an error of one of the call's own requests, a timeout past the deadline, `failed`
 * otherwise (the plugin's message).
 */
async function callWithin<T>(
  deps: PluginHostDeps,
  timeoutMs: number,
  fields: Record<string, unknown>,
  fn: (tools: HandlerTools) => T | Promise<T>,
): Promise<T> {
  const signal = deadline(timeoutMs)
  const sent = new Set<unknown>()
  const base = handlerTools(deps, signal, fields)
  const tools: HandlerTools = {
    ...base,
    http: {
      send: (request) =>
        base.http.send(request).catch((error: unknown) => {
          sent.add(error)
          throw error
        }),
    },
  }
  const expired = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new PluginCallError('timeout', `no answer within ${timeoutMs} ms`)), {
      once: true,
    }),
  )
  expired.catch(() => {})
  try {
    return await Promise.race([Promise.resolve().then(() => fn(tools)), expired])
  } catch (error) {
    if (error instanceof PluginCallError) throw error
    if (signal.aborted) throw new PluginCallError('timeout', `no answer within ${timeoutMs} ms`)
    const network = sent.has(error) || sent.has((error as { cause?: unknown } | null)?.cause)
    throw new PluginCallError(network ? 'unreachable' : 'failed', errorMessage(error))
  }
}

const isValue = (v: unknown): v is OptionItem['value'] =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))

/** The loader's answer as a page, or a `failed` error naming what is wrong with it. */
function checkPage(answer: unknown): OptionsPage {
  const bad = (message: string) => new PluginCallError('failed', `the option loader answered ${message}`)
  const page = answer as { items?: unknown; nextCursor?: unknown } | null
  if (!page || typeof page !== 'object' || !Array.isArray(page.items)) throw bad('no { items }')
  if (page.items.length > MAX_ITEMS) throw bad(`more than ${MAX_ITEMS} items in one page`)
  const items = page.items.map((item: unknown, i): OptionItem => {
    const { label, value } = (item ?? {}) as { label?: unknown; value?: unknown }
    if (typeof label !== 'string' || !isValue(value)) throw bad(`an item ${i} that is not { label, value }`)
    return { label, value }
  })
  const next = page.nextCursor
  if (next !== undefined && next !== null && typeof next !== 'string') throw bad('a nextCursor that is not a string')
  return { items, nextCursor: next || null }
}
