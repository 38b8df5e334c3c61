/**
 * Which outbound targets the guarded client may reach: http(s) URLs without credentials, whose
 * host is neither a forbidden name nor a forbidden address (core/security/ip-ranges.ts) unless the
 * operator's allow-list (`AUTOMATON_ALLOW_PRIVATE_TARGETS`) names the host or covers the address.
 * Names are allowed by name and addresses by CIDR: allowing `127.0.0.1/32` lets
 * `http://127.0.0.1` through but not `http://localhost`, which needs the entry `localhost`.
 */
import { ConfigError } from '../../core/config.ts'
import { TargetRefusedError } from '../../core/ports/http-client.ts'
import {
  type Cidr,
  classifyAddress,
  inCidr,
  isForbiddenHostname,
  parseCidr,
  parseIp,
} from '../../core/security/ip-ranges.ts'

export interface Target {
  readonly url: URL
  /** The host without brackets, lower-cased, as the connection is made to it. */
  readonly host: string
  /** The host is an IP address: nothing to resolve. */
  readonly literal: boolean
  /** The allow-list names the host: every address it resolves to may be reached. */
  readonly allowedByName: boolean
}

export interface TargetPolicy {
  /** Everything that can be judged without DNS; throws `TargetRefusedError`. */
  inspect(url: string): Target
  /** Throws `TargetRefusedError` unless every address the host resolved to may be reached. */
  checkAddresses(target: Target, addresses: readonly string[]): void
}

export function createTargetPolicy(allow: readonly string[]): TargetPolicy {
  const { cidrs, names } = parseAllowList(allow)

  function checkAddresses(target: Target, addresses: readonly string[]): void {
    if (target.allowedByName) return
    for (const address of addresses) {
      const forbidden = classifyAddress(address)
      if (forbidden && !cidrs.some((block) => inCidr(address, block))) {
        const via = target.literal ? '' : ` (${target.host} resolves to it)`
        throw new TargetRefusedError(
          'forbidden-address',
          `${address} is a ${forbidden.range} address${via}; an operator may allow it with AUTOMATON_ALLOW_PRIVATE_TARGETS`,
          { address, range: forbidden.range },
        )
      }
    }
  }

  function inspect(text: string): Target {
    const url = parseHttpUrl(text)
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase()
    const literal = parseIp(host) !== null
    const target: Target = { url, host, literal, allowedByName: names.has(withoutFinalDot(host)) }
    if (literal) checkAddresses(target, [host])
    else if (!target.allowedByName && isForbiddenHostname(host)) {
      throw new TargetRefusedError(
        'forbidden-hostname',
        `${host} names a private or internal host; an operator may allow it with AUTOMATON_ALLOW_PRIVATE_TARGETS`,
      )
    }
    return target
  }

  return Object.freeze({ inspect, checkAddresses })
}

function parseHttpUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new TargetRefusedError('invalid-url', 'the target is not a valid URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TargetRefusedError('scheme', `only http and https targets are allowed, not ${url.protocol}`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new TargetRefusedError(
      'credentials',
      'credentials in the URL are not allowed; send an authorization header instead',
    )
  }
  return url
}

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/

/** CIDRs (`10.0.0.0/8`, `::1/128`, a bare address) and host names; anything else is a config error. */
function parseAllowList(entries: readonly string[]): { cidrs: Cidr[]; names: Set<string> } {
  const cidrs: Cidr[] = []
  const names = new Set<string>()
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase()
    if (entry === '') continue
    const block = parseCidr(entry)
    if (block) cidrs.push(block)
    else if (HOST_NAME.test(entry)) names.add(withoutFinalDot(entry))
    else throw new ConfigError(`AUTOMATON_ALLOW_PRIVATE_TARGETS: "${raw}" is neither a CIDR nor a host name`)
  }
  return { cidrs, names }
}

function withoutFinalDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host
}
