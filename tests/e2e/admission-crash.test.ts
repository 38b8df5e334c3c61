/**
 * kill -9 the server while webhooks of a workflow of pure nodes pour in: such runs are executed
 * inside the transaction that admits them, so a crash leaves each either whole (its row ended,
 * its whole journal) or absent, never half-stored; every run whose webhook was answered is there,
 * ended once, each node executed once; and after a restart nothing is left to finish.
 */
import { describe, expect, it } from 'bun:test'
import { api, startServer, until } from '../helpers/process.ts'
import { publishWorkflow, servedPerStore } from '../helpers/served.ts'
import { storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'

const KEY = 'svcsk_admission_crash_bootstrap_key_0123456789'
const SENDERS = 16

for (const kind of storeKinds()) {
  describe(`kill -9 while runs end at admission (${kind})`, () => {
    const served = servedPerStore(kind, KEY)

    it('leaves every run whole or absent, and every answered run ended once', async () => {
      const { env } = served
      const w = await publishWorkflow(served.server.url, KEY, {
        root: { type: 'manual', children: ['keep'] },
        keep: { type: 'set-variable', payload: { name: 'n', value: '{{$trigger.body.n}}' }, children: ['check'] },
        check: { type: 'if', payload: { condition: { $and: [{ '{{$vars.n}}': { $gte: 0 } }] } }, children: ['say'] },
        say: { type: 'log', branch: 'then', payload: { message: 'n={{$vars.n}}' } },
      })
      const url = `${served.server.url}/v1/webhooks/${w.triggerSecret}`

      // Senders post webhooks until the server dies under them; the runs of answered ones are kept.
      const answered: string[] = []
      let n = 0
      let dead = false
      const sender = async () => {
        while (!dead) {
          try {
            const r = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ n: n++ }),
            })
            if (r.status !== 200) throw new Error(`webhook answered ${r.status}`)
            answered.push(((await r.json()) as { data: { runIds: string[] } }).data.runIds[0])
          } catch (error) {
            if (!dead) throw error
          }
        }
      }
      const senders = Array.from({ length: SENDERS }, sender)
      await until('a few hundred answered webhooks', async () => answered.length >= 300 || undefined)
      dead = true
      await served.server.stop('SIGKILL')
      await Promise.all(senders)
      served.server = await startServer({ env })
      const base = served.server.url

      // Each answered run ended when it was answered: nothing is left running, before or after a while.
      const byStatus = async () =>
        Object.fromEntries(
          (
            await queryDatabase<{ status: string; n: number }>(
              env,
              'SELECT status, COUNT(*) AS n FROM runs WHERE workflow_id = $1 GROUP BY status',
              [w.id],
            )
          ).map((r) => [r.status, Number(r.n)]),
        )
      const stored = await byStatus()
      expect(Object.keys(stored)).toEqual(['success'])
      expect(stored.success).toBeGreaterThanOrEqual(answered.length)
      expect(new Set(answered).size).toBe(answered.length)
      for (const runId of answered.slice(-20)) {
        const run = (await api(base, 'GET', `/v1/runs/${runId}`, KEY)).body.data
        expect(run.status).toBe('success')
        expect(run.nodes.say.status).toBe('success')
      }

      // The journal of every stored run: whole, in order, each node once, one end.
      const journals = await queryDatabase<{
        run_id: string
        n: number
        top: number
        ends: number
        says: number
        keeps: number
        started: number
      }>(
        env,
        `
        SELECT run_id, COUNT(*) AS n, MAX(seq) AS top,
          SUM(CASE WHEN type IN ('run.succeeded', 'run.failed', 'run.partial', 'run.cancelled') THEN 1 ELSE 0 END) AS ends,
          SUM(CASE WHEN type = 'node.succeeded' AND node_id = 'say' THEN 1 ELSE 0 END) AS says,
          SUM(CASE WHEN type = 'node.succeeded' AND node_id = 'keep' THEN 1 ELSE 0 END) AS keeps,
          SUM(CASE WHEN type = 'run.started' AND seq = 1 THEN 1 ELSE 0 END) AS started
        FROM events WHERE workflow_id = $1 AND run_id IS NOT NULL GROUP BY run_id`,
        [w.id],
      )
      expect(journals).toHaveLength(stored.success)
      for (const j of journals) {
        expect({
          contiguous: Number(j.n) === Number(j.top),
          ends: Number(j.ends),
          says: Number(j.says),
          keeps: Number(j.keeps),
          started: Number(j.started),
        }).toEqual({ contiguous: true, ends: 1, says: 1, keeps: 1, started: 1 })
      }
      const ids = new Set(journals.map((j) => j.run_id))
      expect(answered.every((id) => ids.has(id))).toBe(true)

      // Nothing for the restarted process to pick up (it recovers before it serves, so its recovery
      // is over), and it takes new runs at once: the new run is the only change.
      const next = await api(base, 'POST', `/v1/webhooks/${w.triggerSecret}`, undefined, { n: 1 })
      expect((await api(base, 'GET', `/v1/runs/${next.body.data.runIds[0]}`, KEY)).body.data.status).toBe('success')
      expect(await byStatus()).toEqual({ success: stored.success + 1 })
    }, 60_000)
  })
}
