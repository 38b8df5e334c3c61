/**
 * Issue finding 9: a stream of a run that does not exist ends after a bounded wait, and one key
 * cannot hold streams open without end (429 past the cap; a closed stream gives its slot back).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Clock, createManualClock } from '../../core/ports/clock.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

async function open(t: TestSystem, path: string) {
  return t.system.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${t.key}` } }))
}

describe('stream limits', () => {
  let t: TestSystem
  const manual = createManualClock()
  // The manual clock, telling when the stream's wait (the configured 300 ms) has begun.
  let waitBegun!: () => void
  const begun = new Promise<void>((resolve) => {
    waitBegun = resolve
  })
  const clock: Clock & { advance(ms: number): void } = {
    now: manual.now,
    advance: manual.advance,
    sleep(ms, signal) {
      if (ms === 300) waitBegun()
      return manual.sleep!(ms, signal)
    },
  }
  beforeAll(async () => {
    t = await openTestSystem(
      'sqlite',
      { AUTOMATON_SSE_RUN_WAIT_MS: '300', AUTOMATON_SSE_MAX_STREAMS_PER_KEY: '3' },
      { clock },
    )
  })
  afterAll(() => t?.close())

  it('ends the stream of a run that never appears after the configured wait', async () => {
    const response = await open(t, '/v1/runs/run_never_started/stream')
    expect(response.status).toBe(200)
    const text = response.text()
    // The wait is on the system's clock: short of it, nothing can end the stream.
    await begun
    clock.advance(299)
    expect(await Promise.race([text.then(() => 'ended'), Bun.sleep(50).then(() => 'open')])).toBe('open')
    clock.advance(1)
    expect(await text).toContain(': connected')
  })

  it('refuses one stream more than the cap per key with 429, and takes new ones once one closes', async () => {
    const held = [
      await open(t, '/v1/activity/stream'),
      await open(t, '/v1/activity/stream'),
      await open(t, '/v1/activity/stream'),
    ]
    for (const r of held) expect(r.status).toBe(200)
    const refused = await open(t, '/v1/activity/stream')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
    expect(await refused.json()).toMatchObject({ code: 429, message: expect.stringContaining('at most 3 streams') })
    await held[0].body!.cancel()
    let again: Response | undefined
    for (let i = 0; i < 50; i++) {
      again = await open(t, '/v1/activity/stream')
      if (again.status === 200) break
      await Bun.sleep(20)
    }
    expect(again!.status).toBe(200)
    await again!.body!.cancel()
    for (const r of held.slice(1)) await r.body!.cancel()
  })
})
