/**
 * Runs that are executing when Postgres goes away (a proxy of the test's own is cut). A node that
 * needs nothing of the database goes on; the engine's own reads before the next node (the
 * organization's secret masks, read again after a second) wait for the database instead of
 * failing the node: once it is back the runs finish as they would have, and their workflow is not
 * paused for failing several runs in a row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type HeldReceiver, startHeldReceiver } from '../helpers/receiver.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { createSkewedClock } from '../helpers/clock.ts'
import { openTestSystem, recordingLogger, type TestSystem } from '../helpers/system.ts'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'
import { callingOut, createLive, waitForRun } from '../helpers/workflows.ts'
import { eventually } from '../helpers/eventually.ts'

if (!TEST_DATABASE_URL) warnSkipped('runs during a Postgres outage', 'AUTOMATON_TEST_DATABASE_URL')
else {
  describe('runs executing while Postgres is unreachable', () => {
    let db: Awaited<ReturnType<typeof freshPostgresUrl>>
    let proxy: TcpProxy
    let t: TestSystem
    let receiver: HeldReceiver
    // The real time, moved on by the test when the organization's masks are to age.
    const clock = createSkewedClock()
    const logger = recordingLogger()

    beforeAll(async () => {
      db = await freshPostgresUrl()
      proxy = await startTcpProxy(db.url)
      receiver = startHeldReceiver()
      t = await openTestSystem(
        'postgres',
        { AUTOMATON_DATABASE_URL: proxy.via(db.url), AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' },
        { clock, logger },
      )
    })
    afterAll(async () => {
      receiver.answer()
      await proxy.restore()
      await t?.close()
      await receiver.stop()
      await proxy.close()
      await db.drop()
    })

    it('finish once the database is back, and their workflow stays live', async () => {
      const w = await createLive(t, { definition: callingOut(`${receiver.url}/call/{{$run.id}}`) })
      // More runs than the failures in a row that pause a workflow (5 by default), started by webhook.
      const runIds: string[] = []
      for (let i = 0; i < 7; i++)
        runIds.push(
          (await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body: { i } })).body.data.runIds[0],
        )
      await eventually(() => receiver.requests.length === runIds.length, 'every run calling out')
      await proxy.cut()
      // Older than the organization's masks are kept (a second): the next node has to read them.
      clock.skip(1500)
      receiver.answer()
      // Every run has its node's answer and finds the database away: the outage meets them all.
      const waiting = (id: string) =>
        logger.lines.some((line) => line.includes('could not persist run transition') && line.includes(id))
      await eventually(() => runIds.every(waiting), 'every run meeting the outage after its node answered')
      await proxy.restore()
      for (const id of runIds) expect((await waitForRun(t, id, undefined, 20_000)).status).toBe('success')
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data.pausedReason).toBe('')
      // Each node ran once.
      expect(receiver.requests).toHaveLength(runIds.length)
    }, 40_000)
  })
}
