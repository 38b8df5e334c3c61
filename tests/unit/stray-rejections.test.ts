/**
 * serve and worker stay up when a promise rejects with nobody to hear it (the runtime's default
 * is to exit): the rejection is logged as an error and the process goes on.
 */
import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { BUN, ROOT } from '../helpers/process.ts'

/** Runs a process that rejects a promise nobody awaits, then says it is still there. */
async function rejectNobodyHears(withHandler: boolean) {
  const io = join(ROOT, 'adapters', 'cli', 'io.ts')
  const logger = join(ROOT, 'core', 'logger.ts')
  const code = `
    import { logStrayRejections } from ${JSON.stringify(io)}
    import { createJsonLogger } from ${JSON.stringify(logger)}
    if (${withHandler}) logStrayRejections(createJsonLogger('info', (line) => process.stdout.write(line)))
    Promise.reject(new Error('write ECONNRESET'))
    setTimeout(() => console.log('still serving'), 50)
  `
  const child = Bun.spawn([BUN, '-e', code], { stdout: 'pipe', stderr: 'pipe' })
  const [out, status] = await Promise.all([new Response(child.stdout).text(), child.exited])
  return { out, status }
}

describe('a promise that rejects with nobody to hear it', () => {
  it('ends the process by the runtime’s default', async () => {
    const { out, status } = await rejectNobodyHears(false)
    expect(status).not.toBe(0)
    expect(out).not.toContain('still serving')
  })

  it('is logged as an error, and the process serves on', async () => {
    const { out, status } = await rejectNobodyHears(true)
    expect(status).toBe(0)
    expect(out).toContain('still serving')
    const logged = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'a promise rejected with nobody to hear it; serving on',
        error: 'Error: write ECONNRESET',
      }),
    ])
    expect(logged[0].stack).toContain('write ECONNRESET')
  })
})
