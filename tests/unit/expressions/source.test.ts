import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = join(import.meta.dir, '../../../runtime/expressions')

describe('the expression module source', () => {
  it('never evaluates code and imports no runtime-specific module', () => {
    const files = readdirSync(dir).filter((file) => file.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const source = readFileSync(join(dir, file), 'utf8')
      expect(source).not.toContain('eval(')
      expect(source).not.toContain('new Function')
      expect(source).not.toMatch(/from '(?:bun|node):|\bBun\.|\bDeno\./)
    }
  })
})
