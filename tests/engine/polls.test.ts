/**
 * Polling triggers on a manual clock, against a local RSS feed: the first poll records what is
 * there, each new item then starts exactly one run (oldest first, with its title, link, id and
 * date), items seen before start nothing, two pollers and a poller whose lease ran out never
 * start an item twice, a failing feed backs off with its error visible, a reset starts afresh,
 * and items that appear while the workflow is paused start their runs when it is resumed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createManualClock } from '../../core/ports/clock.ts'
import { createPoller } from '../../runtime/polls/poller.ts'
import { createPollReconciler } from '../../runtime/polls/reconcile.ts'
import { startFeed, type TestFeed } from '../helpers/feed.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { eventually } from '../helpers/eventually.ts'
import { createLive } from '../helpers/workflows.ts'

const START = Date.parse('2026-03-01T00:00:00Z')
const INTERVAL = 60_000

const feedFlow = (url: string, extra: Record<string, unknown> = {}) => ({
  definition: {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'feed-item', payload: { url, intervalSeconds: INTERVAL / 1000, ...extra }, children: ['say'] },
      say: { type: 'log', payload: { message: '{{root.result.body.title}}' } },
    },
  },
})

interface PolledRun {
  id: string
  itemId: string
  title: string
  triggeredBy: string
}

async function runsOf(t: TestSystem, workflowId: string): Promise<PolledRun[]> {
  const rows = await t.system.store.all<{ id: string; trigger_event: string; triggered_by: string }>(
    'SELECT id, trigger_event, triggered_by FROM runs WHERE workflow_id = $1 ORDER BY started_at, id',
    [workflowId],
  )
  return rows.map((r) => {
    const body = JSON.parse(r.trigger_event).body
    return { id: r.id, itemId: body.id, title: body.title, triggeredBy: r.triggered_by }
  })
}

const itemIds = async (t: TestSystem, workflowId: string) => (await runsOf(t, workflowId)).map((r) => r.itemId)

for (const kind of storeKinds()) {
  describe(`polling triggers (${kind})`, () => {
    let t: TestSystem
    let feed: TestFeed
    const clock = createManualClock(START)
    beforeAll(async () => {
      t = await openTestSystem(
        kind,
        { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1', AUTOMATON_POLL_MIN_INTERVAL_MS: '10000' },
        { clock },
      )
    })
    afterAll(() => t.close())

    const polls = async (id: string) => (await t.call('GET', `/v1/workflows/${id}/polls`)).body.data
    const tick = () => t.system.engine.polls.tick()
    /** A fresh feed per test, and the clock moved past every poll a previous test left due. */
    const fresh = async () => {
      feed?.stop()
      feed = startFeed()
      clock.advance(10 * INTERVAL)
      await tick()
    }
    /** Ticks, then waits until the workflow has `count` polled runs (a woken background round may start them). */
    const startedRuns = async (workflowId: string, count: number) => {
      await tick()
      await eventually(async () => (await runsOf(t, workflowId)).length >= count, `${count} polled runs`)
    }
    const nextInterval = async () => {
      clock.advance(INTERVAL)
      return tick()
    }

    it('records what is there at the first poll, then starts one run per new item, oldest first', async () => {
      await fresh()
      feed.add('a', 'b')
      const w = await createLive(t, feedFlow(feed.url))
      expect(await tick()).toBe(0)
      expect(await runsOf(t, w.id)).toEqual([])
      expect((await polls(w.id)).triggers[0]).toMatchObject({
        triggerNodeId: 'root',
        type: 'feed-item',
        active: true,
        primed: true,
        seenKeys: 2,
        recentKeys: ['a', 'b'],
        lastItems: 2,
        lastRuns: 0,
        lastError: '',
        cursor: { etag: '"2"' },
      })

      feed.add('c', 'd')
      expect(await nextInterval()).toBe(2)
      const runs = await runsOf(t, w.id)
      expect(runs.map((r) => [r.itemId, r.triggeredBy])).toEqual([
        ['c', 'integration'],
        ['d', 'integration'],
      ])
      const run = (await t.call('GET', `/v1/runs/${runs[0].id}`)).body.data
      expect(run.nodes.root.result).toMatchObject({
        type: 'feed-item',
        body: {
          id: 'c',
          title: 'Item <c> & more',
          link: 'https://example.org/c',
          published: new Date(feed.items[2].published).toISOString(),
          feedUrl: feed.url,
        },
      })

      // Not modified, then the same items again: nothing starts.
      expect(await nextInterval()).toBe(0)
      expect(feed.notModified).toBe(1)
      expect(await itemIds(t, w.id)).toEqual(['c', 'd'])
      const state = (await polls(w.id)).triggers[0]
      expect(state).toMatchObject({ seenKeys: 4, lastRuns: 0 })
      expect(Date.parse(state.nextPollAt)).toBe(clock.now() + INTERVAL)
    })

    it('polls no sooner than its interval, and never more often than the server floor', async () => {
      await fresh()
      const w = await createLive(t, feedFlow(feed.url, { intervalSeconds: 1 }))
      await tick()
      const before = feed.requests
      clock.advance(9_000)
      await tick()
      expect(feed.requests).toBe(before)
      clock.advance(1_000)
      await tick()
      expect(feed.requests).toBe(before + 1)
      expect(Date.parse((await polls(w.id)).triggers[0].nextPollAt) - clock.now()).toBe(10_000)
    })

    it('with fireExisting, starts a run for the items already there', async () => {
      await fresh()
      feed.add('x', 'y')
      const w = await createLive(t, feedFlow(feed.url, { fireExisting: true }))
      // Publishing wakes the process's own poller too: whichever round polls first starts the runs.
      await startedRuns(w.id, 2)
      expect(await itemIds(t, w.id)).toEqual(['x', 'y'])
    })

    it('starts each item once when two pollers race on the same store', async () => {
      await fresh()
      const w = await createLive(t, feedFlow(feed.url))
      await tick()
      // Postgres: a second system on the same database, as a second process. SQLite: a second poller on the same store.
      const other =
        kind === 'postgres' ? await t.openSibling({ AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1' }, { clock }) : null
      const second = other?.system.engine.polls ?? hereAnotherPoller(t)
      try {
        for (let round = 0; round < 4; round++) {
          feed.add(`r${round}a`, `r${round}b`)
          clock.advance(INTERVAL)
          await Promise.all([tick(), second.tick(), tick(), second.tick()])
        }
        expect(await itemIds(t, w.id)).toEqual(['r0a', 'r0b', 'r1a', 'r1b', 'r2a', 'r2b', 'r3a', 'r3b'])
      } finally {
        await other?.stop()
      }
    })

    it('commits nothing from a poll whose lease ran out while another poller took over', async () => {
      await fresh()
      const w = await createLive(t, feedFlow(feed.url))
      await tick()
      feed.add('late-1', 'late-2')
      clock.advance(INTERVAL)
      // The first poller leases the row and hangs on the platform past its lease; a second poller
      // then finds the lease expired and takes the row (a new fence) while the first still hangs.
      const release = feed.hold()
      const before = feed.requests
      const slow = tick()
      await until(() => feed.requests > before)
      clock.advance(5 * 60_000)
      const second = hereAnotherPoller(t)
      const fast = second.tick()
      await until(() => feed.requests > before + 1)
      release()
      // Each commits what it fetched: only the holder of the current fence does.
      const [slowRuns, fastRuns] = await Promise.all([slow, fast])
      expect([slowRuns, fastRuns]).toEqual([0, 2])
      expect(await itemIds(t, w.id)).toEqual(['late-1', 'late-2'])
    })

    it('keeps the error of a failing feed, backs off, and recovers', async () => {
      await fresh()
      const w = await createLive(t, feedFlow(feed.url))
      await tick()
      feed.failWith(503)
      await nextInterval()
      const failed = (await polls(w.id)).triggers[0]
      expect(failed).toMatchObject({ lastError: 'the feed answered 503', failures: 1 })
      const firstBackoff = Date.parse(failed.nextPollAt) - clock.now()
      expect(firstBackoff).toBe(10_000)
      clock.advance(firstBackoff)
      await tick()
      const again = (await polls(w.id)).triggers[0]
      expect(again.failures).toBe(2)
      expect(Date.parse(again.nextPollAt) - clock.now()).toBe(20_000)
      feed.failWith(null)
      feed.add('after')
      clock.advance(20_000)
      expect(await tick()).toBe(1)
      expect((await polls(w.id)).triggers[0]).toMatchObject({ failures: 0, lastError: '' })
    })

    it('resets: the next poll records what is there and starts nothing', async () => {
      await fresh()
      feed.add('one')
      const w = await createLive(t, feedFlow(feed.url))
      await tick()
      const reset = await t.call('POST', `/v1/workflows/${w.id}/polls/root/reset`)
      expect(reset.status).toBe(200)
      expect(reset.body.data).toMatchObject({ primed: false, seenKeys: 0, cursor: null })
      feed.add('two')
      await tick()
      expect(await runsOf(t, w.id)).toEqual([])
      expect((await polls(w.id)).triggers[0]).toMatchObject({ primed: true, seenKeys: 2 })
      expect((await t.call('POST', `/v1/workflows/${w.id}/polls/nope/reset`)).status).toBe(404)
    })

    it('while paused polls nothing; on resume the items that appeared meanwhile start once each', async () => {
      await fresh()
      const w = await createLive(t, feedFlow(feed.url))
      await tick()
      expect((await t.call('POST', `/v1/workflows/${w.id}/pause`)).status).toBe(200)
      expect((await polls(w.id)).triggers[0]).toMatchObject({ active: false, nextPollAt: '' })
      feed.add('while-paused')
      const before = feed.requests
      await nextInterval()
      expect(feed.requests).toBe(before)
      expect((await t.call('POST', `/v1/workflows/${w.id}/resume`)).status).toBe(200)
      // Resuming wakes the process's own poller too: whichever round polls first starts the run.
      await startedRuns(w.id, 1)
      expect(await itemIds(t, w.id)).toEqual(['while-paused'])
    })

    it('a changed trigger is a new instance; re-publishing an unchanged one keeps what it has seen', async () => {
      await fresh()
      feed.add('p')
      const w = await createLive(t, feedFlow(feed.url))
      await tick()
      const republished = await t.call('PUT', `/v1/workflows/${w.id}`, {
        body: {
          definition: {
            ...feedFlow(feed.url).definition,
            nodes: { ...feedFlow(feed.url).definition.nodes, say: { type: 'log', payload: { message: 'changed' } } },
          },
        },
      })
      expect(republished.status).toBe(200)
      expect((await t.call('POST', `/v1/workflows/${w.id}/publish`)).status).toBe(200)
      expect((await polls(w.id)).triggers[0]).toMatchObject({ primed: true, seenKeys: 1 })
      feed.add('q')
      expect(await nextInterval()).toBe(1)
      expect(await itemIds(t, w.id)).toEqual(['q'])

      // Another feed URL: a new trigger instance, which starts by recording what is there.
      const other = startFeed()
      other.add('z')
      try {
        expect((await t.call('PUT', `/v1/workflows/${w.id}`, { body: feedFlow(other.url) })).status).toBe(200)
        expect((await t.call('POST', `/v1/workflows/${w.id}/publish`)).status).toBe(200)
        expect((await polls(w.id)).triggers[0]).toMatchObject({ primed: false, seenKeys: 0 })
        await tick()
        expect(await itemIds(t, w.id)).toEqual(['q'])
      } finally {
        other.stop()
      }
    })
  })
}

/** Another poller on the same system's store, as a second process would run one. */
function hereAnotherPoller(t: TestSystem) {
  const s = t.system
  const reconciler = createPollReconciler({
    registry: s.registry,
    clock: s.clock,
    ids: s.ids,
    dialect: s.store.dialect,
  })
  return createPoller({
    store: s.store,
    bus: s.bus,
    clock: s.clock,
    logger: s.logger,
    registry: s.registry,
    dispatcher: s.engine.dispatcher,
    reconciler,
    owner: 'wkr_second',
    minIntervalMs: 10_000,
    http: s.http,
  })
}

async function until(condition: () => boolean) {
  for (let i = 0; i < 500 && !condition(); i++) await Bun.sleep(5)
  if (!condition()) throw new Error('the condition did not hold')
}
