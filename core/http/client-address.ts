/**
 * Who is asking, when a reverse proxy stands in between: only a request whose peer address is
 * a trusted proxy (AUTOMATON_TRUSTED_PROXIES) has its client address taken from
 * `X-Forwarded-For` and its scheme from `X-Forwarded-Proto`. The client is the right-most hop
 * that is not itself a trusted proxy: every hop left of it was written by someone we do not
 * trust, so a client cannot forge its way past the limits kept per address.
 */
import { type Cidr, parseCidr, inCidr, parseIp } from '../security/ip-ranges.ts'

export interface ClientView {
  /** The client's address as this service believes it; null when the server adapter gave none. */
  address: string | null
  /** `https` or `http`, as the client spoke to the first trusted hop. */
  scheme: 'http' | 'https' | null
}

export type ProxyTrust = (peer: string | null, headers: Headers) => ClientView

/** `1.2.3.4`, `1.2.3.4:5678`, `::1`, `[::1]:80` → the address alone, or null when it is not one. */
function addressOf(hop: string): string | null {
  const text = hop.trim()
  if (parseIp(text)) return text
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed && parseIp(bracketed[1])) return bracketed[1]
  const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)
  if (v4port && parseIp(v4port[1])) return v4port[1]
  return null
}

export function createProxyTrust(trusted: readonly string[]): ProxyTrust {
  const blocks = trusted.map((entry) => parseCidr(entry)).filter((c): c is Cidr => c !== null)
  const isTrusted = (address: string) => blocks.some((block) => inCidr(address, block))

  return (peer, headers) => {
    if (!peer || blocks.length === 0 || !isTrusted(peer)) return { address: peer, scheme: null }
    let address = peer
    const hops = (headers.get('x-forwarded-for') ?? '').split(',').filter((h) => h.trim() !== '')
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = addressOf(hops[i])
      // An unreadable hop ends the walk: the last address we could vouch for stands.
      if (!hop) break
      address = hop
      if (!isTrusted(hop)) break
    }
    const proto = headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase()
    return { address, scheme: proto === 'https' || proto === 'http' ? proto : null }
  }
}
