import { describe, expect, it } from 'bun:test'
import { hookUrlProblem } from '../../../core/security/hook-url.ts'

describe('which URLs a hook may use', () => {
  const strict = { allowHttp: false, allowList: ['127.0.0.1/32', '10.1.0.0/16', 'hooks.internal'] }

  it('takes https everywhere and plain http only for hosts the operator lists', () => {
    expect(hookUrlProblem('https://example.com/hook', strict)).toBeNull()
    expect(hookUrlProblem('http://example.com/hook', strict)).toContain('https')
    expect(hookUrlProblem('http://127.0.0.1:8080/hook', strict)).toBeNull()
    expect(hookUrlProblem('http://10.1.2.3/hook', strict)).toBeNull()
    expect(hookUrlProblem('http://10.2.0.1/hook', strict)).toContain('https')
    expect(hookUrlProblem('http://hooks.internal./hook', strict)).toBeNull()
    expect(hookUrlProblem('http://localhost/hook', strict)).toContain('https')
  })

  it('takes http anywhere when the operator allows it, and never another scheme', () => {
    const open = { allowHttp: true, allowList: [] }
    expect(hookUrlProblem('http://example.com/hook', open)).toBeNull()
    expect(hookUrlProblem('ftp://example.com/hook', open)).toContain('https')
    expect(hookUrlProblem('not a url', open)).toBe('is not a valid URL')
  })
})
