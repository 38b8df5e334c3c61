/**
 * Two deployments on one NATS server, told apart by AUTOMATON_NATS_PREFIX: each one's events and
 * work stay its own, while each still names its subjects as if it were alone on the server.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { jetstreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import { connectNats } from '../../adapters/nats/connection.ts'
import { type Config, loadConfig } from '../../core/config.ts'
import type { Bus } from '../../core/ports/bus.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import type { WorkQueue } from '../../core/ports/work-queue.ts'
import { openMessaging, workStreamOf } from '../../system/adapters.ts'
import type { Own } from '../../system/types.ts'
import { eventually } from '../helpers/eventually.ts'
import { TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'

const releases: Array<() => Promise<unknown> | unknown> = []
const own: Own = async (acquire, release) => {
  const value = await acquire()
  releases.push(() => release(value))
  return value
}

const NATS_URL = TEST_NATS_URL
const tag = crypto.randomUUID().slice(0, 8)

function deployment(prefix: string): Config {
  return loadConfig({
    AUTOMATON_NATS_URL: TEST_NATS_URL ?? '',
    AUTOMATON_DATABASE_URL: 'postgres://unused/unused',
    AUTOMATON_NATS_PREFIX: prefix,
  })
}

async function open(prefix: string): Promise<{ bus: Bus; workQueue: WorkQueue; config: Config }> {
  const config = deployment(prefix)
  return { ...(await openMessaging(config, 'api', silentLogger, own)), config }
}

if (!NATS_URL) warnSkipped('two deployments on one NATS server', 'AUTOMATON_TEST_NATS_URL')
else {
  let spy: NatsConnection
  afterAll(async () => {
    for (const release of releases.reverse()) await release()
    const jsm = await jetstreamManager(spy)
    for (const prefix of [`a${tag}`, `b${tag}`])
      await jsm.streams.delete(workStreamOf(deployment(prefix))).catch(() => {})
    await spy.close()
  })

  describe('two deployments sharing one NATS server with different prefixes', () => {
    it('keeps the events of one from the other, under its prefix on the server', async () => {
      spy = await connectNats(NATS_URL, 'prefix-spy')
      const a = await open(`a${tag}`)
      const b = await open(`b${tag}`)
      const seenByA: string[] = []
      const seenByB: string[] = []
      const onServer: string[] = []
      a.bus.subscribe('evt.>', (m) => void seenByA.push(m.subject))
      b.bus.subscribe('evt.>', (m) => void seenByB.push(m.subject))
      spy.subscribe(`a${tag}.>`, { callback: (_, m) => void onServer.push(m.subject) })
      await Promise.all([a.bus.ping(), b.bus.ping(), spy.flush()])

      a.bus.publish('evt.org.wf.run_a', { from: 'a' })
      b.bus.publish('evt.org.wf.run_b', { from: 'b' })
      await eventually(() => seenByA.length === 1 && seenByB.length === 1 && onServer.length === 1, 'both events')
      // A round trip on each connection: anything the server sent them before has arrived.
      await Promise.all([a.bus.ping(), b.bus.ping()])

      expect(seenByA).toEqual(['evt.org.wf.run_a'])
      expect(seenByB).toEqual(['evt.org.wf.run_b'])
      expect(onServer).toEqual([`a${tag}.evt.org.wf.run_a`])
    })

    it('gives each its own work stream, whose runs only its workers take', async () => {
      const a = await open(`a${tag}`)
      const b = await open(`b${tag}`)
      expect(workStreamOf(a.config)).toBe(`A${tag.toUpperCase()}_AUTOMATON_WORK`)
      const takenByA: string[] = []
      const takenByB: string[] = []
      const consumers = await Promise.all([
        a.workQueue.consume(async (runId) => void takenByA.push(runId), 4),
        b.workQueue.consume(async (runId) => void takenByB.push(runId), 4),
      ])
      releases.push(() => Promise.all(consumers.map((c) => c.stop())))
      await a.workQueue.notify('run_a')
      await b.workQueue.notify('run_b')
      await eventually(() => takenByA.length >= 1 && takenByB.length >= 1, 'both runs taken')
      expect(takenByA).toEqual(['run_a'])
      expect(takenByB).toEqual(['run_b'])
    })
  })

  describe('a deployment without a prefix', () => {
    it('keeps the names of earlier versions', () => {
      const config = deployment('')
      expect(workStreamOf(config)).toBe('AUTOMATON_WORK')
    })

    it('refuses a prefix that is not NATS subject words', () => {
      expect(() => deployment('a b')).toThrow(/AUTOMATON_NATS_PREFIX/)
      expect(() => deployment('a.>')).toThrow(/AUTOMATON_NATS_PREFIX/)
    })
  })
}
