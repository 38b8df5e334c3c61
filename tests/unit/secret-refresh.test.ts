/**
 * The masks of secret values and the sensitive props that runs use: read once for all who ask
 * together, and read again in the background from half their freshness on, and on a timer while
 * they were asked for lately, so that a busy organization's runs never find them stale (a run that
 * does waits, and executes its node later).
 */
import { describe, expect, it } from 'bun:test'
import { createManualClock } from '../../core/ports/clock.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import type { SecretBox } from '../../core/ports/secret-box.ts'
import type { Store } from '../../core/ports/store.ts'
import { createSecretMasks } from '../../core/services/secret-masks.ts'
import { createSecretProps } from '../../core/services/secret-props.ts'

const FRESH_MS = 1000

/** A store that answers the two services' reads from `rows` and counts the statements. */
function countingStore(rows: {
  connectors: Array<{ id: string; updated_at: number; sealed_secrets: string }>
  sealedProps: string | null
}) {
  const reads: string[] = []
  const store = {
    dialect: 'sqlite',
    async get(sql: string) {
      reads.push(sql)
      return { sealed_props: rows.sealedProps }
    },
    async all(sql: string) {
      reads.push(sql)
      return sql.includes('FROM connectors') ? rows.connectors : []
    },
  } as unknown as Store
  return { store, reads }
}

const box: SecretBox = {
  seal: async (text: string) => text,
  open: async (text: string) => text,
} as unknown as SecretBox
/** One turn of the event loop: the reads woken meanwhile, answered in microtasks, have ended. */
const oneTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Moves `clock` on by `ms` in steps of `step`, letting the timers each step wakes do their reads. */
async function pass(clock: ReturnType<typeof createManualClock>, ms: number, step: number) {
  for (let moved = 0; moved < ms; moved += step) {
    clock.advance(step)
    await oneTurn()
  }
}

const clockAt = (start: number) => {
  const clock = { at: start, now: () => clock.at }
  return clock
}

describe('secret masks and sensitive props kept fresh', () => {
  it('reads sensitive props once for concurrent askers, and again ahead of their expiry', async () => {
    const rows = { connectors: [], sealedProps: JSON.stringify({ token: 'v1-secret' }) }
    const { store, reads } = countingStore(rows)
    const clock = clockAt(10_000)
    const props = createSecretProps({ store, secretBox: box, clock, logger: silentLogger, freshMs: FRESH_MS })

    const together = await Promise.all(Array.from({ length: 20 }, () => props.of('wf_1')))
    expect(together.every((p) => p.token === 'v1-secret')).toBe(true)
    expect(reads).toHaveLength(1)

    clock.at += FRESH_MS * 0.4
    expect(props.peek('wf_1')).toEqual({ token: 'v1-secret' })
    expect(reads).toHaveLength(1)

    // From half the freshness on, a peek still answers and starts one read in the background.
    rows.sealedProps = JSON.stringify({ token: 'v2-secret' })
    clock.at += FRESH_MS * 0.2
    expect(props.peek('wf_1')).toEqual({ token: 'v1-secret' })
    expect(props.peek('wf_1')).toEqual({ token: 'v1-secret' })
    expect(reads).toHaveLength(2)
    await props.of('wf_1')

    // Past the first read's freshness, the values read ahead are there: nobody waits.
    clock.at += FRESH_MS * 0.5
    expect(props.peek('wf_1')).toEqual({ token: 'v2-secret' })
    // With no read since for a whole freshness (this clock moves without the timers), they are stale.
    clock.at += FRESH_MS * 2
    expect(props.peek('wf_1')).toBeUndefined()
  })

  it('keeps busy values read during a pause in asking, stops once they are no longer asked for, and never answers stale ones', async () => {
    // A manual clock: a pause is the clock moved on, its keep-warm timers waking as it passes them.
    const fresh = 200
    const clock = createManualClock()
    const rows = { connectors: [], sealedProps: JSON.stringify({ token: 'v1-secret' }) }
    const { store, reads } = countingStore(rows)
    const props = createSecretProps({ store, secretBox: box, clock, logger: silentLogger, freshMs: fresh })
    await props.of('wf_1')
    // Busy: the nodes of many runs ask for them.
    for (let i = 0; i < 20; i++) expect(props.peek('wf_1')).toEqual({ token: 'v1-secret' })

    // Nobody asks for three freshnesses (a process waiting on its writes): the values are read
    // again meanwhile, so the next run to ask finds them fresh, changed values included.
    rows.sealedProps = JSON.stringify({ token: 'v2-secret' })
    await pass(clock, fresh * 3, fresh / 2)
    expect(reads.length).toBeGreaterThanOrEqual(3)
    expect(props.peek('wf_1')).toEqual({ token: 'v2-secret' })

    // Not asked for in ten freshnesses, they are no longer read, and expire.
    await pass(clock, fresh * 12, fresh / 2)
    const settled = reads.length
    await pass(clock, fresh * 2, fresh / 2)
    expect(reads.length).toBe(settled)
    expect(props.peek('wf_1')).toBeUndefined()
  })

  it('reads a value asked for now and then only when asked', async () => {
    const fresh = 200
    const clock = createManualClock()
    const rows = { connectors: [], sealedProps: JSON.stringify({ token: 'quiet' }) }
    const { store, reads } = countingStore(rows)
    const props = createSecretProps({ store, secretBox: box, clock, logger: silentLogger, freshMs: fresh })
    await props.of('wf_quiet')
    expect(props.peek('wf_quiet')).toEqual({ token: 'quiet' })
    await pass(clock, fresh * 3, fresh / 2)
    expect(reads).toHaveLength(1)
    expect(props.peek('wf_quiet')).toBeUndefined()
  })

  it("reads an organization's mask ahead of its expiry, and masks a secret changed meanwhile within the freshness", async () => {
    const rows = {
      connectors: [{ id: 'con_1', updated_at: 1, sealed_secrets: JSON.stringify({ apiKey: 'first-key-123' }) }],
      sealedProps: null,
    }
    const { store, reads } = countingStore(rows)
    const clock = clockAt(50_000)
    const masks = createSecretMasks({ store, secretBox: box, clock, logger: silentLogger, freshMs: FRESH_MS })

    const first = await masks.of('org_1')
    expect(JSON.stringify(first({ text: 'uses first-key-123' }))).not.toContain('first-key-123')
    const afterFirst = reads.length

    rows.connectors = [{ id: 'con_1', updated_at: 2, sealed_secrets: JSON.stringify({ apiKey: 'second-key-456' }) }]
    clock.at += FRESH_MS * 0.6
    expect(masks.peek('org_1')).toBe(first)
    expect(reads.length).toBeGreaterThan(afterFirst)
    // The background read's store and box answer in microtasks: one turn of the event loop ends it.
    await oneTurn()

    clock.at += FRESH_MS * 0.5
    const next = masks.peek('org_1')
    expect(next).toBeDefined()
    expect(JSON.stringify(next!({ text: 'uses second-key-456' }))).not.toContain('second-key-456')
  })
})
