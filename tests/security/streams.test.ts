/**
 * Issue finding 9: a stream of a run that does not exist ends after a bounded wait, and one key
 * cannot hold streams open without end (429 past the cap; a closed stream gives its slot back).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Clock, createManualClock } from '../../core/ports/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

/** One turn of the event loop: whatever the clock's move woke has run its microtasks. */
const oneTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

async function open(t: TestSystem, path: string) {
  return t.system.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${t.key}` } }))
}

describe('stream limits', () => {
  let t: TestSystem
  const manual = createManualClock()
  // The manual clock, telling when the stream's wait (the configured 300 ms) has begun and ended.
  let waitBegun!: () => void
  const begun = new Promise<void>((resolve) => {
    waitBegun = resolve
  })
  let waitOver = false
  const clock: Clock & { advance(ms: number): void } = {
    now: manual.now,
    advance: manual.advance,
    sleep(ms, signal) {
      if (ms !== 300) return manual.sleep!(ms, signal)
      waitBegun()
      return manual.sleep!(ms, signal).then(() => {
        waitOver = true
      })
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
    // The wait is on the test's clock: short of it, the wait is not over and the stream stays open.
    let ended = false
    void text.then(() => {
      ended = true
    })
    await begun
    clock.advance(299)
    await oneTurn()
    expect(waitOver).toBe(false)
    expect(ended).toBe(false)
    clock.advance(1)
    expect(await text).toContain(': connected')
    expect(waitOver).toBe(true)
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
    // The slot comes back once the server has seen the stream close.
    let again: Response | undefined
    await eventually(async () => {
      again = await open(t, '/v1/activity/stream')
      return again.status === 200
    }, "a stream taken in the closed one's slot")
    await again!.body!.cancel()
    for (const r of held.slice(1)) await r.body!.cancel()
  })
})
