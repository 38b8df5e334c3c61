/**
 * Which URLs an execution hook may be sent to, before any address is looked at: https always;
 * plain http only when the operator allows it, either for every host (`AUTOMATON_HOOK_ALLOW_HTTP`)
 * or for the hosts it lists in `AUTOMATON_ALLOW_PRIVATE_TARGETS` (by name, or an address inside
 * one of its CIDRs). Where the URL's addresses may point is the SSRF guard's job (HttpClient).
 */
import { inCidr, parseCidr, parseIp } from './ip-ranges.ts'

export interface HookUrlPolicy {
  readonly allowHttp: boolean
  readonly allowList: readonly string[]
}

/** Null when the URL may be used, otherwise why not. */
export function hookUrlProblem(text: string, policy: HookUrlPolicy): string | null {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'is not a valid URL'
  }
  if (url.protocol === 'https:') return null
  if (url.protocol !== 'http:') return `must be an https URL, not ${url.protocol}`
  if (policy.allowHttp || allowListed(url.hostname, policy.allowList)) return null
  return 'must be an https URL; plain http is only allowed for hosts the operator lists'
}

function allowListed(hostname: string, allowList: readonly string[]): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '')
  const literal = parseIp(host) !== null
  return allowList.some((raw) => {
    const entry = raw.trim().toLowerCase().replace(/\.$/, '')
    if (entry === '') return false
    const block = parseCidr(entry)
    if (block) return literal && inCidr(host, block)
    return !literal && entry === host
  })
}
