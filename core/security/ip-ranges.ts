/**
 * Addresses and host names that outbound requests must not reach unless an operator allows them
 * (the SSRF guard's vocabulary). Pure functions over strings; they parse, they never resolve.
 *
 * IPv4 is read as URL parsing reads a host (`127.1`, `0x7f.0.0.1`, `2130706433` are all
 * 127.0.0.1), IPv6 with an optional zone (`fe80::1%eth0`) and brackets. An IPv6 address that
 * carries an IPv4 one (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16` …) is judged
 * by the IPv4 address inside.
 */

export interface IpAddress {
  readonly version: 4 | 6
  /** 4 or 16 bytes, network order. */
  readonly bytes: Uint8Array
}

export interface Cidr extends IpAddress {
  readonly prefix: number
}

export interface ForbiddenRange {
  readonly range: string
}

export function parseIp(text: string): IpAddress | null {
  const v4 = parseIpv4(text)
  if (v4) return { version: 4, bytes: v4 }
  const v6 = parseIpv6(text)
  return v6 ? { version: 6, bytes: v6 } : null
}

/** `10.0.0.0/8`, `::1/128`; a bare address is a full-length prefix. Null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/')
  const ip = parseIp(slash < 0 ? text.trim() : text.slice(0, slash).trim())
  if (!ip) return null
  const max = ip.version === 4 ? 32 : 128
  if (slash < 0) return { ...ip, prefix: max }
  const digits = text.slice(slash + 1).trim()
  if (!/^\d{1,3}$/.test(digits) || Number(digits) > max) return null
  return { ...ip, prefix: Number(digits) }
}

/** Whether `ip` lies in `cidr`; an IPv4-mapped IPv6 address also matches IPv4 prefixes. */
export function inCidr(ip: string | IpAddress, cidr: string | Cidr): boolean {
  const address = typeof ip === 'string' ? parseIp(ip) : ip
  const block = typeof cidr === 'string' ? parseCidr(cidr) : cidr
  if (!address || !block) return false
  const candidate = address.version === 6 && block.version === 4 ? unmapIpv4(address.bytes) : address.bytes
  if (!candidate || candidate.length !== block.bytes.length) return false
  return prefixMatches(candidate, block.bytes, block.prefix)
}

/**
 * The forbidden range an address falls in, or null for an ordinary public address. Text that is
 * not an IP address is `{ range: 'invalid' }`: a guard that cannot read an address refuses it.
 */
export function classifyAddress(ip: string): ForbiddenRange | null {
  const address = parseIp(ip)
  if (!address) return { range: 'invalid' }
  return address.version === 4 ? classifyIpv4(address.bytes) : classifyIpv6(address.bytes)
}

/** Names that point inside the host or the cloud whatever DNS says (`localhost`, `*.internal` …). */
export function isForbiddenHostname(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/\.+$/, '')
  if (name === '' || FORBIDDEN_NAMES.has(name)) return true
  return FORBIDDEN_SUFFIXES.some((suffix) => name.endsWith(suffix))
}

const FORBIDDEN_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal'])
const FORBIDDEN_SUFFIXES = ['.localhost', '.internal', '.local']

// First match wins, so the narrow ranges come before the blocks that contain them.
const IPV4_RANGES = table([
  ['169.254.169.254/32', 'cloud-metadata'],
  ['255.255.255.255/32', 'broadcast'],
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade-nat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'ietf-protocol-assignments'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
])

const IPV6_RANGES = table([
  ['fd00:ec2::254/128', 'cloud-metadata'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'nat64-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['fc00::/7', 'unique-local'],
  ['ff00::/8', 'multicast'],
])

/** IPv6 prefixes that carry an IPv4 address, and the byte where it starts. */
const IPV4_CARRIERS: readonly (readonly [Cidr, number])[] = [
  [cidr('::ffff:0:0/96'), 12], // IPv4-mapped
  [cidr('::ffff:0:0:0/96'), 12], // IPv4-translated (SIIT)
  [cidr('::/96'), 12], // IPv4-compatible (deprecated)
  [cidr('64:ff9b::/96'), 12], // NAT64 well-known prefix
  [cidr('2002::/16'), 2], // 6to4
]

function classifyIpv4(bytes: Uint8Array): ForbiddenRange | null {
  const hit = IPV4_RANGES.find(([block]) => prefixMatches(bytes, block.bytes, block.prefix))
  return hit ? { range: hit[1] } : null
}

function classifyIpv6(bytes: Uint8Array): ForbiddenRange | null {
  const hit = IPV6_RANGES.find(([block]) => prefixMatches(bytes, block.bytes, block.prefix))
  if (hit) return { range: hit[1] }
  for (const [block, at] of IPV4_CARRIERS) {
    if (prefixMatches(bytes, block.bytes, block.prefix)) return classifyIpv4(bytes.subarray(at, at + 4))
  }
  return null
}

function unmapIpv4(bytes: Uint8Array): Uint8Array | null {
  const [mapped] = IPV4_CARRIERS[0]
  return prefixMatches(bytes, mapped.bytes, mapped.prefix) ? bytes.subarray(12, 16) : null
}

function prefixMatches(bytes: Uint8Array, network: Uint8Array, prefix: number): boolean {
  if (bytes.length !== network.length) return false
  const whole = prefix >> 3
  for (let i = 0; i < whole; i++) if (bytes[i] !== network[i]) return false
  const rest = prefix & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (bytes[whole] & mask) === (network[whole] & mask)
}

function table(rows: readonly (readonly [string, string])[]): readonly (readonly [Cidr, string])[] {
  return rows.map(([text, name]) => [cidr(text), name] as const)
}

function cidr(text: string): Cidr {
  const parsed = parseCidr(text)
  if (!parsed) throw new Error(`bad built-in CIDR ${text}`)
  return parsed
}

/** IPv4 the way the URL standard reads a host: 1 to 4 parts, decimal, octal (`0…`) or hex (`0x…`). */
function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.')
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop()
  if (parts.length === 0 || parts.length > 4) return null
  const numbers: number[] = []
  for (const part of parts) {
    const n = parseIpv4Number(part)
    if (n === null) return null
    numbers.push(n)
  }
  const last = numbers.pop()!
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null
  const value = numbers.reduce((sum, n, i) => sum + n * 256 ** (3 - i), 0) + last
  return new Uint8Array([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff])
}

function parseIpv4Number(part: string): number | null {
  let digits = part
  let radix = 10
  if (/^0x/i.test(part)) [digits, radix] = [part.slice(2), 16]
  else if (part.length > 1 && part.startsWith('0')) [digits, radix] = [part.slice(1), 8]
  if (digits === '') return radix === 16 || part === '0' ? 0 : null
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/
  if (!valid.test(digits)) return null
  const n = parseInt(digits, radix)
  return n <= 0xffffffff ? n : null
}

function parseIpv6(text: string): Uint8Array | null {
  let s = text.trim()
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1)
  const zone = s.indexOf('%')
  if (zone >= 0) s = s.slice(0, zone)
  if (!s.includes(':')) return null
  const halves = s.split('::')
  if (halves.length > 2) return null
  const head = groups(halves[0], halves.length === 1)
  const tail = halves.length === 2 ? groups(halves[1], true) : []
  if (!head || !tail) return null
  const explicit = head.length + tail.length
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return null
  const words = [...head, ...new Array<number>(8 - explicit).fill(0), ...tail]
  const bytes = new Uint8Array(16)
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8
    bytes[2 * i + 1] = word & 0xff
  })
  return bytes
}

/** Colon-separated 16-bit groups; a dotted IPv4 address may end the address and counts as two. */
function groups(text: string, endsAddress: boolean): number[] | null {
  if (text === '') return []
  const parts = text.split(':')
  const words: number[] = []
  for (const [i, part] of parts.entries()) {
    if (endsAddress && i === parts.length - 1 && part.includes('.')) {
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(part)) return null
      const v4 = part.split('.').map(Number)
      if (v4.some((n) => n > 255)) return null
      words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3])
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
      words.push(parseInt(part, 16))
    } else {
      return null
    }
  }
  return words
}
