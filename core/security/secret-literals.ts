/**
 * Finds what would make a template carry a secret: a literal that looks like a key or token
 * (by its shape anywhere, by its place in a header or URL), in any string of a definition.
 * Expressions (`{{…}}`) are references, not secrets, and pass.
 */
import type { ErrorDetail } from '../errors.ts'

/** Shapes of well-known credentials. */
const SHAPES: ReadonlyArray<[RegExp, string]> = [
  [/svcsk_[A-Za-z0-9_-]{16,}/, 'an Automaton API key'],
  [/\bsk-[A-Za-z0-9_-]{20,}/, 'an API secret key'],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/, 'a chat bot token'],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/, 'a code hosting token'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'a cloud access key'],
  [/\bwhsec_[A-Za-z0-9+/=_-]{16,}/, 'a webhook signing secret'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'],
  [/\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, 'a signed token'],
  [/\b0x[0-9a-fA-F]{64}\b/, 'a private key'],
  [/^Bearer\s+[A-Za-z0-9._~+/-]{16,}=*$/i, 'a bearer token'],
]

const CREDENTIAL_NAME =
  /(auth|token|secret|passw|api[-_]?key|apikey|signature|cookie|session|private[-_]?key|access[-_]?key)/i
const isExpression = (text: string) => /^\s*\{\{[\s\S]*\}\}\s*$/.test(text)

function urlProblem(text: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return null
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return null
  }
  if (url.password || (url.username && !url.username.includes('{{'))) return 'credentials in a URL'
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_NAME.test(name) && value.length >= 8 && !value.includes('{{'))
      return `a credential in the URL parameter ${name}`
  }
  return null
}

/** Every string that looks like a secret, with the JSON pointer of where it is. */
export function secretLiterals(value: unknown, path: string, out: ErrorDetail[] = [], name = ''): ErrorDetail[] {
  if (typeof value === 'string') {
    if (isExpression(value)) return out
    for (const [shape, what] of SHAPES) {
      if (shape.test(value)) {
        out.push({ path, message: `looks like ${what}; use a connector or a sensitive prop instead` })
        return out
      }
    }
    const inUrl = urlProblem(value)
    if (inUrl) out.push({ path, message: `${inUrl}; use a connector or a sensitive prop instead` })
    else if (name && CREDENTIAL_NAME.test(name) && value.length >= 8 && !value.includes('{{')) {
      out.push({ path, message: `a literal ${name}; use a connector or a sensitive prop instead` })
    }
    return out
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => secretLiterals(item, `${path}/${i}`, out, name))
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      secretLiterals(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, out, key)
  }
  return out
}
