/**
 * kill -9 the server while a feed trigger polls a feed that keeps growing: after a restart every
 * item added after the trigger was enabled has started exactly one run, none twice and none
 * missed; the items already there when it was enabled started none.
 */
import { describe, expect, it } from 'bun:test'
import { api, startServer, until } from '../helpers/process.ts'
import { startFeed } from '../helpers/feed.ts'
import { publishWorkflow, servedPerStore } from '../helpers/served.ts'
import { storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'

const KEY = 'svcsk_polls_crash_bootstrap_key_0123456789ab'

for (const kind of storeKinds()) {
  describe(`kill -9 while a feed trigger polls (${kind})`, () => {
    const served = servedPerStore(kind, KEY, {
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1',
      AUTOMATON_POLL_MIN_INTERVAL_MS: '1000',
    })

    it('starts one run per new item across the crash and the restart', async () => {
      const feed = startFeed()
      try {
        feed.add('old-1', 'old-2')
        const w = await publishWorkflow(served.server.url, KEY, {
          root: { type: 'feed-item', payload: { url: feed.url, intervalSeconds: 1 }, children: ['say'] },
          say: { type: 'log', payload: { message: '{{root.result.body.id}}' } },
        })
        await until('the first poll', async () => {
          const polls = await api(served.server.url, 'GET', `/v1/workflows/${w.id}/polls`, KEY)
          return polls.body.data?.triggers[0]?.primed || undefined
        })

        // Items keep coming while the server polls, dies and comes back.
        let adding = true
        let n = 0
        const adder = (async () => {
          while (adding) {
            feed.add(`item-${n++}`)
            await Bun.sleep(40)
          }
        })()
        const runItems = async () =>
          (
            await queryDatabase<{ body: string }>(
              served.env,
              'SELECT trigger_event AS body FROM runs WHERE workflow_id = $1',
              [w.id],
            )
          ).map((r) => JSON.parse(r.body).body.id as string)

        await until('runs from a few polls', async () => ((await runItems()).length >= 30 ? true : undefined))
        await served.server.stop('SIGKILL')
        served.server = await startServer({ env: served.env })
        const atRestart = n
        await until('runs of items added after the restart', async () =>
          (await runItems()).length >= atRestart + 10 ? true : undefined,
        )
        adding = false
        await adder
        const added = feed.items.map((i) => i.id).filter((id) => id.startsWith('item-'))
        const all = await until(
          'a run for every item added',
          async () => {
            const items = await runItems()
            return new Set(items).size >= added.length ? items : undefined
          },
          30_000,
        )
        const counts = new Map<string, number>()
        for (const id of all) counts.set(id, (counts.get(id) ?? 0) + 1)
        expect([...counts].filter(([, c]) => c > 1)).toEqual([])
        expect([...counts.keys()].sort()).toEqual([...added].sort())
        expect(counts.has('old-1') || counts.has('old-2')).toBe(false)
      } finally {
        feed.stop()
      }
    })
  })
}
