/**
 * Run ownership across an outage of the database. Two processes share one Postgres, each through
 * a proxy of its own, so that the test decides when each of them sees the database again. An
 * outage silences every heartbeat at once: the process that is back first must not take the
 * runs of the other on a heartbeat that went stale while neither could write one (that executed
 * their nodes twice), and must still take them once the other stays away.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { type HeldReceiver, startHeldReceiver } from '../helpers/receiver.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'
import { callingOut, createLive, waitForRun } from '../helpers/workflows.ts'
import { eventually } from '../helpers/eventually.ts'
import { createSkewedClock, type SkewedClock } from '../helpers/clock.ts'
import { recordingLogger } from '../helpers/system.ts'

// Far beyond what real time covers during a test: only the test's skips of the clock age a heartbeat.
const TIMEOUT_MS = 60_000

const ready = (t: TestSystem) => async () => (await t.call('GET', '/readyz', { key: null })).status === 200

if (!TEST_DATABASE_URL) warnSkipped('run ownership across a Postgres outage', 'AUTOMATON_TEST_DATABASE_URL')
else {
  describe('run ownership when the database goes away for everyone', () => {
    let db: Awaited<ReturnType<typeof freshPostgresUrl>>
    let first: TcpProxy
    let second: TcpProxy
    let owner: TestSystem
    let other: TestSystem
    let receiver: HeldReceiver
    let runId: string
    let clock: SkewedClock
    let ownerLog: ReturnType<typeof recordingLogger>
    let otherLog: ReturnType<typeof recordingLogger>

    const callsOf = (id: string) => receiver.requests.filter((r) => r.path.endsWith(`/${id}`)).length

    beforeEach(async () => {
      db = await freshPostgresUrl()
      first = await startTcpProxy(db.url)
      second = await startTcpProxy(db.url)
      // The node's call is held until the test lets it answer: the run is executing all along.
      receiver = startHeldReceiver()
      const env = {
        AUTOMATON_WORKER_TIMEOUT_MS: String(TIMEOUT_MS),
        AUTOMATON_HEARTBEAT_MS: '200',
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      }
      clock = createSkewedClock()
      ownerLog = recordingLogger()
      otherLog = recordingLogger()
      owner = await openTestSystem(
        'postgres',
        { ...env, AUTOMATON_DATABASE_URL: first.via(db.url) },
        { clock, logger: ownerLog },
      )
      other = await owner.openSibling({ AUTOMATON_DATABASE_URL: second.via(db.url) }, { clock, logger: otherLog })
      const w = await createLive(owner, { definition: callingOut(`${receiver.url}/call/{{$run.id}}`) })
      // Admitted by `owner`, which executes it (no NATS: each process runs what it admits).
      runId = (await owner.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })).body.data.runId
      await eventually(() => callsOf(runId) === 1, 'the node calling out')
    })
    afterEach(async () => {
      receiver.answer()
      await first.restore()
      await second.restore()
      await other?.stop()
      await owner?.close()
      await receiver.stop()
      await Promise.all([first.close(), second.close()])
      await db.drop()
    })

    const heartbeatFailed = (log: { lines: string[] }) => log.lines.some((l) => l.includes('worker heartbeat failed'))

    /** Both lose the database for longer than the worker timeout; `other` gets it back first. */
    async function outageOfEveryone() {
      await Promise.all([first.cut(), second.cut()])
      // Each process has noticed: a heartbeat of its own failed. Then the outage lasts a timeout and more.
      await eventually(() => heartbeatFailed(ownerLog) && heartbeatFailed(otherLog), 'both heartbeats failing')
      clock.skip(TIMEOUT_MS + 600)
      await second.restore()
      await eventually(ready(other), 'the other process seeing the database again')
    }

    /** Two heartbeats of the other process written from `at` on: a sweep of orphaned runs ran in between. */
    async function sweptSince(at: number) {
      const seen = new Set<number>()
      await eventually(async () => {
        for (const r of await other.system.store.all<{ at: number }>('SELECT heartbeat_at AS at FROM workers'))
          if (Number(r.at) >= at) seen.add(Number(r.at))
        return seen.size >= 2
      }, 'two heartbeats, and so a sweep, of the other process')
    }

    it('keeps each run with its owner when the owner comes back within the timeout', async () => {
      await outageOfEveryone()
      // The other process sweeps every heartbeat; the owner's heartbeat is older than the timeout.
      clock.skip(TIMEOUT_MS / 2)
      await sweptSince(clock.now())
      await first.restore()
      await eventually(ready(owner), 'the owner seeing the database again')
      receiver.answer()
      const run = await waitForRun(owner, runId)
      expect(run.status).toBe('success')
      // The node ran once: nobody took the run over.
      expect(callsOf(runId)).toBe(1)
    }, 30_000)

    it('takes over the runs of a process that stays away for a full timeout after the database came back', async () => {
      await outageOfEveryone()
      // The owner stays cut off: after a timeout counted from the return (the other's first heartbeat
      // after it), its runs are taken over.
      await sweptSince(clock.now())
      clock.skip(TIMEOUT_MS)
      await eventually(() => callsOf(runId) === 2, 'the other process taking the run over')
      receiver.answer()
      const run = await waitForRun(other, runId)
      expect(run.status).toBe('success')
    }, 30_000)
  })
}
