/** String formats are registered by our own module, not as a side effect of some other import. */
import { describe, expect, it } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Elysia } from 'elysia'
import '../../core/plugin/formats.ts'
import { createApp } from '../../core/http/app.ts'

const check = (format: string, value: string) => TypeCompiler.Compile(Type.String({ format })).Check(value)

describe('string formats', () => {
  it('accepts valid date-times and refuses invalid ones', () => {
    for (const ok of [
      '2026-11-25T04:23:54Z',
      '2026-11-25T04:23:54.123+02:00',
      '2024-02-29T00:00:00Z',
      '2026-12-31t23:59:60Z',
    ])
      expect(check('date-time', ok)).toBe(true)
    for (const bad of [
      '2026-11-25',
      '2026-13-01T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-11-25T24:00:00Z',
      'yesterday',
      '2026-11-25T04:23:54',
      '2026-11-25 04:23:54Z',
    ])
      expect(check('date-time', bad)).toBe(false)
  })
  it('checks dates, e-mail addresses, URIs and UUIDs', () => {
    expect(check('date', '2026-11-25')).toBe(true)
    expect(check('date', '2026-11-31')).toBe(false)
    expect(check('email', 'ops@example.com')).toBe(true)
    expect(check('email', 'not an address')).toBe(false)
    expect(check('uri', 'https://example.com/a?b=c')).toBe(true)
    expect(check('uri', '/relative')).toBe(false)
    expect(check('uuid', '123e4567-e89b-12d3-a456-426614174000')).toBe(true)
    expect(check('uuid', '123e4567')).toBe(false)
  })
  it('stay ours once the HTTP framework is loaded', () => {
    expect(typeof Elysia).toBe('function')
    expect(typeof createApp).toBe('function')
    expect(check('date', '2026-11-31')).toBe(false)
  })
  it('is what the engine uses: no module imports the formats of the HTTP framework for their side effect', async () => {
    const { Glob } = await import('bun')
    const offenders: string[] = []
    for (const dir of ['core', 'runtime', 'plugins', 'adapters']) {
      for await (const file of new Glob(`${dir}/**/*.ts`).scan({ cwd: `${import.meta.dir}/../..` })) {
        const text = await Bun.file(`${import.meta.dir}/../../${file}`).text()
        if (text.includes("'elysia/type-system/format'")) offenders.push(file)
      }
    }
    expect(offenders).toEqual([])
  })
})
