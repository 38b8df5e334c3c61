/**
 * The outbound HTTP client with the SSRF guard (the `HttpClient` port).
 *
 * A target is checked twice: before the request (URL, host name, resolved addresses), and at
 * connect time through node:http's `lookup` hook, which resolves the name again, refuses if any
 * address is forbidden, and hands the runtime only the addresses it validated. Checking a name
 * and then letting the runtime resolve it on its own is not enough: a rebinding DNS server can
 * answer a public address to the check and 127.0.0.1 to the connection. With `keepAlive`, an
 * open connection is reused for the same host: it was checked when it was opened.
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_OUTBOUND_TIMEOUT_MS,
  type HttpClient,
  type OutboundRequest,
  type OutboundResponse,
  OutboundTimeoutError,
  TargetRefusedError,
} from '../../core/ports/http-client.ts'
import { type Logger, silentLogger } from '../../core/ports/logger.ts'
import { parseIp } from '../../core/security/ip-ranges.ts'
import { exchange } from './node-exchange.ts'
import { createTargetPolicy, type Target } from './target-policy.ts'

/** Every address a host name resolves to. */
export type Resolve = (host: string) => Promise<string[]>

export interface GuardedHttpClientOptions {
  /** CIDRs or host names that may be reached although private (`AUTOMATON_ALLOW_PRIVATE_TARGETS`). */
  readonly allow?: readonly string[]
  /** Name resolution; the system resolver by default, injectable for tests. */
  readonly resolve?: Resolve
  readonly logger?: Logger
  /**
   * Keep connections open for the next request to the same host (execution hooks and the nodes'
   * calls send many requests to few hosts). A kept connection goes to an address that was checked
   * when it was opened, so reusing it checks nothing new; idle ones close after 4 s, before the
   * usual server keep-alive timeout of 5 s. Default: a fresh connection per request.
   */
  readonly keepAlive?: boolean
}

export const systemResolve: Resolve = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

export function createGuardedHttpClient(options: GuardedHttpClientOptions = {}): HttpClient {
  const policy = createTargetPolicy(options.allow ?? [])
  const resolve = options.resolve ?? systemResolve
  const logger = options.logger ?? silentLogger
  const agents = options.keepAlive ? createAgents() : null

  function refused(error: unknown): never {
    if (error instanceof TargetRefusedError) {
      logger.warn('outbound target refused', {
        reason: error.reason,
        address: error.address,
        range: error.range,
        message: error.message,
      })
    }
    throw error
  }

  /** The addresses the target may be reached at; a refusal when any of them is forbidden. */
  async function addressesOf(target: Target): Promise<string[]> {
    if (target.literal) return [target.host]
    const addresses = await resolve(target.host)
    if (addresses.length === 0) throw Object.assign(new Error(`${target.host} has no address`), { code: 'ENOTFOUND' })
    policy.checkAddresses(target, addresses)
    return addresses
  }

  async function check(url: string): Promise<Target> {
    try {
      const target = policy.inspect(url)
      await addressesOf(target)
      return target
    } catch (error) {
      return refused(error)
    }
  }

  /** The connect-time check: node:http connects only to what this hands back. */
  function connectTimeLookup(target: Target) {
    let handed: string[] = []
    let refusal: TargetRefusedError | undefined
    const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
      addressesOf(target).then(
        (all) => {
          const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0
          handed = family === 0 ? all : all.filter((address) => familyOf(address) === family)
          if (handed.length === 0)
            return callback(
              Object.assign(new Error(`${target.host} has no IPv${family} address`), { code: 'ENOTFOUND' }),
              '',
            )
          if (lookupOptions.all)
            callback(
              null,
              handed.map((address) => ({ address, family: familyOf(address) })),
            )
          else callback(null, handed[0], familyOf(handed[0]))
        },
        (error: Error) => {
          if (error instanceof TargetRefusedError) refusal = error
          callback(error, '')
        },
      )
    }
    return { lookup, refusal: () => refusal, handedOne: () => (handed.length === 1 ? handed[0] : null) }
  }

  async function send(request: OutboundRequest): Promise<OutboundResponse> {
    const timeoutMs = request.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS
    const deadline = createDeadline(timeoutMs, request.signal)
    try {
      const target = await untilAborted(check(request.url), deadline.signal)
      const connect = target.literal ? undefined : connectTimeLookup(target)
      try {
        return await exchange({
          url: target.url,
          host: target.host,
          method: request.method,
          headers: request.headers,
          body: request.body,
          maxResponseBytes: request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
          signal: deadline.signal,
          lookup: connect?.lookup,
          servername: target.literal || target.url.protocol !== 'https:' ? undefined : target.host.replace(/\.$/, ''),
          fallbackAddress: () => (connect ? connect.handedOne() : target.host),
          agent: agents?.[target.url.protocol as 'http:' | 'https:'],
        })
      } catch (error) {
        // The runtime may wrap what the lookup hook failed with; report the refusal itself.
        return refused(connect?.refusal() ?? error)
      }
    } finally {
      deadline.dispose()
    }
  }

  return Object.freeze({
    checkTarget: async (url: string) => {
      await check(url)
    },
    send,
  })
}

function createAgents() {
  const options = { keepAlive: true, timeout: 4000, maxFreeSockets: 4096 }
  return { 'http:': new http.Agent(options), 'https:': new https.Agent(options) }
}

function familyOf(address: string): 4 | 6 {
  return parseIp(address)?.version ?? 4
}

/** One signal for the whole exchange: the timeout (an `OutboundTimeoutError`) or the caller's abort. */
function createDeadline(timeoutMs: number, outer?: AbortSignal) {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new OutboundTimeoutError(timeoutMs)), timeoutMs)
  const onAbort = () => controller.abort(outer?.reason)
  if (outer?.aborted) onAbort()
  else outer?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
    },
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
