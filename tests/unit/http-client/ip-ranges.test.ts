import { describe, expect, it } from 'bun:test'
import { classifyAddress, inCidr, isForbiddenHostname, parseCidr, parseIp } from '../../../core/security/ip-ranges.ts'

const rangeOf = (ip: string) => classifyAddress(ip)?.range ?? null

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['100.127.255.255', 'carrier-grade-nat'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['192.0.0.8', 'ietf-protocol-assignments'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
  ])('classifies the IPv4 address %s as %s', (ip, range) => {
    expect(rangeOf(ip)).toBe(range)
  })

  it.each([
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['ff02::1', 'multicast'],
    ['FF05::1:3', 'multicast'],
    ['fec0::1', 'site-local'],
  ])('classifies the IPv6 address %s as %s', (ip, range) => {
    expect(rangeOf(ip)).toBe(range)
  })

  it.each([
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['::FFFF:0:0', 'unspecified'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'cloud-metadata'],
    ['64:ff9b::c0a8:101', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1:1::1', 'private'],
    ['2002:a9fe:a9fe::', 'cloud-metadata'],
    ['64:ff9b:1::1', 'nat64-local'],
  ])('judges %s by the IPv4 address it carries (%s)', (ip, range) => {
    expect(rangeOf(ip)).toBe(range)
  })

  it.each([
    ['127.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['10.1', 'private'],
    ['0', 'unspecified'],
    ['169.254.43518', 'cloud-metadata'],
    ['127.0.0.1.', 'loopback'],
  ])('reads the IPv4 notation %s as URL parsing does (%s)', (ip, range) => {
    expect(rangeOf(ip)).toBe(range)
  })

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '198.20.0.1',
    '223.255.255.255',
    '192.0.1.1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    'fe7f::1',
  ])('lets the public address %s through', (ip) => {
    expect(classifyAddress(ip)).toBeNull()
  })

  it.each([
    '',
    'example.com',
    '256.0.0.1',
    '1.2.3.4.5',
    '08.0.0.1',
    '1::2::3',
    '::g',
    '1:2:3:4:5:6:7:8:9',
    '[::1',
    '1.2.3.4::',
  ])('refuses text that is not an address (%p) rather than passing it', (text) => {
    expect(classifyAddress(text)).toEqual({ range: 'invalid' })
  })
})

describe('parseIp and parseCidr', () => {
  it('parses both families into bytes', () => {
    expect(parseIp('10.0.0.1')).toEqual({ version: 4, bytes: new Uint8Array([10, 0, 0, 1]) })
    expect(parseIp('::ffff:a00:1')?.bytes).toEqual(
      new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1]),
    )
    expect(parseIp('1:2:3:4:5:6:7:8')?.version).toBe(6)
    expect(parseIp('localhost')).toBeNull()
  })

  it('reads a bare address as a full-length prefix and rejects bad prefixes', () => {
    expect(parseCidr('10.0.0.0/8')?.prefix).toBe(8)
    expect(parseCidr('127.0.0.1')?.prefix).toBe(32)
    expect(parseCidr('::1')?.prefix).toBe(128)
    expect(parseCidr('10.0.0.0/33')).toBeNull()
    expect(parseCidr('::/129')).toBeNull()
    expect(parseCidr('10.0.0.0/')).toBeNull()
    expect(parseCidr('10.0.0.0/-1')).toBeNull()
    expect(parseCidr('receiver.internal')).toBeNull()
  })
})

describe('inCidr', () => {
  it('matches IPv4 prefixes at their boundaries', () => {
    expect(inCidr('10.255.255.255', '10.0.0.0/8')).toBe(true)
    expect(inCidr('11.0.0.0', '10.0.0.0/8')).toBe(false)
    expect(inCidr('172.31.0.1', '172.16.0.0/12')).toBe(true)
    expect(inCidr('172.32.0.1', '172.16.0.0/12')).toBe(false)
    expect(inCidr('127.0.0.1', '127.0.0.1/32')).toBe(true)
    expect(inCidr('127.0.0.2', '127.0.0.1/32')).toBe(false)
    expect(inCidr('8.8.8.8', '0.0.0.0/0')).toBe(true)
  })

  it('matches IPv6 prefixes, and IPv4-mapped addresses against IPv4 prefixes', () => {
    expect(inCidr('::1', '::1/128')).toBe(true)
    expect(inCidr('fe80::abcd', 'fe80::/10')).toBe(true)
    expect(inCidr('fec0::1', 'fe80::/10')).toBe(false)
    expect(inCidr('::ffff:127.0.0.1', '127.0.0.0/8')).toBe(true)
    expect(inCidr('::ffff:127.0.0.1', '::ffff:0:0/96')).toBe(true)
  })

  it('never matches across families or with malformed input', () => {
    expect(inCidr('127.0.0.1', '::1/128')).toBe(false)
    expect(inCidr('::1', '0.0.0.0/0')).toBe(false)
    expect(inCidr('nonsense', '0.0.0.0/0')).toBe(false)
    expect(inCidr('10.0.0.1', '10.0.0.0/99')).toBe(false)
  })
})

describe('isForbiddenHostname', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'api.localhost',
    'metadata',
    'metadata.google.internal',
    'metadata.google.internal.',
    'db.internal',
    'printer.local',
    '',
  ])('forbids %p', (host) => {
    expect(isForbiddenHostname(host)).toBe(true)
  })

  it.each(['example.com', 'localhost.example.com', 'internal.example.com', 'metadata.example.com', 'local'])(
    'allows %p',
    (host) => {
      expect(isForbiddenHostname(host)).toBe(false)
    },
  )
})
