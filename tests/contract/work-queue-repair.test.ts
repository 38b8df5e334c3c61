/**
 * The JetStream work queue repairs itself (adapters/nats/work-queue.ts): a stream or consumer
 * deleted under a running queue is made again by the next publish or pull, notifications that
 * could not be published are kept and sent once the stream takes them, failures are logged once
 * a second, and a stream made again is reported as a loss. Each test deletes only streams named
 * for it: the NATS server is shared.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import { connectNats } from '../../adapters/nats/connection.ts'
import { natsWorkQueue } from '../../adapters/nats/work-queue.ts'
import { CONSUMER } from '../../adapters/nats/work-stream.ts'
import type { WorkConsumer, WorkQueue } from '../../core/ports/work-queue.ts'
import { createJsonLogger } from '../../core/logger.ts'
import type { Logger } from '../../core/ports/logger.ts'
import { TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { until } from '../helpers/process.ts'

if (!TEST_NATS_URL) warnSkipped("the JetStream work queue's repairs", 'AUTOMATON_TEST_NATS_URL')

describe.skipIf(!TEST_NATS_URL)('the JetStream work queue repairs itself', () => {
  const connections: NatsConnection[] = []
  const streams: string[] = []
  let jsm: JetStreamManager
  let n = 0

  /**
   * A queue on a stream of its own, or on `stream` (another process of the same deployment). Its
   * logger is a process's (one line a second per kind of warning, with a count), except that the
   * test ends each second itself (`endSecond`); `warnings` keeps every warning asked for.
   */
  async function open(options: { maxKept?: number; stream?: string } = {}) {
    const nc = await connectNats(TEST_NATS_URL!, 'work-queue-repair')
    connections.push(nc)
    jsm ??= await jetstreamManager(nc)
    const stream = options.stream ?? `T_WQR_${Date.now()}_${process.pid}_${++n}`
    streams.push(stream)
    const lines: Array<Record<string, unknown>> = []
    const seconds: Array<() => void> = []
    const logger = createJsonLogger('info', (line) => lines.push(JSON.parse(line)), {
      after: (_ms, then) => void seconds.push(then),
    })
    const warnings: string[] = []
    const recording: Logger = {
      ...logger,
      warn(msg, fields) {
        warnings.push(msg)
        logger.warn(msg, fields)
      },
    }
    const queue = await natsWorkQueue(nc, recording, { stream, ...options })
    const taken: string[] = []
    return {
      stream,
      lines,
      warnings,
      endSecond: () => {
        for (const end of seconds.splice(0)) end()
      },
      queue,
      taken,
      consume: (concurrency = 4) => queue.consume(async (runId) => void taken.push(runId), concurrency),
    }
  }

  afterAll(async () => {
    for (const stream of streams) await jsm?.streams.delete(stream).catch(() => {})
    for (const nc of connections) await nc.close()
  })

  const exists = (what: Promise<unknown>) =>
    what.then(
      () => true,
      () => false,
    )
  const linesOf = (lines: Array<Record<string, unknown>>, msg: string) =>
    lines.filter((l) => String(l.msg).startsWith(msg))

  /**
   * Deletes the queue's stream and puts in its place another that takes the same subjects and
   * refuses every message (sealed): the queue can neither publish nor make its stream again until
   * that one is deleted. Returns its name.
   */
  async function block(stream: string) {
    const { config } = await jsm.streams.info(stream)
    await jsm.streams.delete(stream)
    const blocker = `${stream}_BLOCK`
    streams.push(blocker)
    await jsm.streams.add({ name: blocker, subjects: config.subjects })
    await jsm.streams.update(blocker, { ...(await jsm.streams.info(blocker)).config, sealed: true } as never)
    return blocker
  }

  async function stop(queue: WorkQueue, consumer: WorkConsumer) {
    await consumer.stop()
    await queue.close()
  }

  it('makes a deleted stream again on the next publish, and hands out what was published after', async () => {
    const { stream, queue, taken, consume } = await open()
    const consumer = await consume()
    await queue.notify('run_before')
    await until('the first notification', async () => taken.includes('run_before'), 5000)

    await jsm.streams.delete(stream)
    const after = Array.from({ length: 20 }, (_, i) => `run_after_${i}`)
    for (const runId of after) await queue.notify(runId)
    // Seconds, not the workers' sweep (15 s by default) nor a restart.
    await until('every notification after the deletion', async () => after.every((id) => taken.includes(id)), 5000)
    expect(await exists(jsm.streams.info(stream))).toBe(true)
    expect(await exists(jsm.consumers.info(stream, CONSUMER))).toBe(true)
    await stop(queue, consumer)
  })

  it('makes a deleted consumer again, and hands out what waited in the stream', async () => {
    const { stream, queue, taken, consume } = await open()
    const consumer = await consume()
    await queue.notify('run_1')
    await until('the first notification', async () => taken.includes('run_1'), 5000)

    await jsm.consumers.delete(stream, CONSUMER)
    await queue.notify('run_2')
    await until('the notification stored while the consumer was missing', async () => taken.includes('run_2'), 5000)
    expect(await exists(jsm.consumers.info(stream, CONSUMER))).toBe(true)
    await stop(queue, consumer)
  })

  it('reports a stream made again as a loss, and a stream it made at start to the first listener', async () => {
    const { stream, queue, consume } = await open()
    const losses: number[] = []
    // This queue made its stream: what a wiped stream held would be gone, and a worker looks.
    queue.onLoss!(() => losses.push(1))
    await until('the loss at start', async () => losses.length === 1, 1000)
    const consumer = await consume()
    await jsm.streams.delete(stream)
    await queue.notify('run_x')
    await until('the loss of the deleted stream', async () => losses.length === 2, 5000)
    await stop(queue, consumer)
  })

  it('has a worker that publishes nothing find a stream made again by another process, and report the loss', async () => {
    const api = await open()
    const worker = await open({ stream: api.stream })
    const losses: number[] = []
    worker.queue.onLoss!(() => losses.push(1))
    const consumer = await worker.consume()
    await api.queue.notify('run_1')
    await until('the first notification', async () => worker.taken.includes('run_1'), 5000)

    await jsm.streams.delete(api.stream)
    await api.queue.notify('run_2')
    // The worker hears nothing from its consumer any more, and makes a new one within seconds.
    await until('the notification published after the deletion', async () => worker.taken.includes('run_2'), 8000)
    await until('the loss reported to the worker', async () => losses.length === 1, 8000)
    await stop(worker.queue, consumer)
    await api.queue.close()
  })

  it('keeps what it cannot publish, logs it once a second, and sends it all once the stream takes it', async () => {
    const { stream, lines, warnings, endSecond, queue, taken, consume } = await open()
    const consumer = await consume()
    const blocker = await block(stream)

    const ids = Array.from({ length: 200 }, (_, i) => `run_kept_${i}`)
    // Each resolves while the stream refuses everything, so none waited for it: it is kept.
    for (const runId of ids) await queue.notify(runId)
    const failure = 'could not publish work notifications; they are kept and sent again'
    const failed = () => warnings.filter((msg) => msg === failure).length
    await until('the kept notifications failing again', async () => failed() >= 4, 5000)
    expect(taken.filter((id) => id.startsWith('run_kept_'))).toEqual([])
    // Within a second, one line (the first failure, at once), however many publishes failed.
    expect(linesOf(lines, failure)).toHaveLength(1)
    // When the second ends, one line says how many more came in it.
    const inTheSecond = failed() - 1
    endSecond()
    expect(linesOf(lines, failure)).toHaveLength(2)
    expect(Number(linesOf(lines, failure)[1].repeated)).toBe(inTheSecond)

    await jsm.streams.delete(blocker)
    await until('every kept notification', async () => ids.every((id) => taken.includes(id)), 5000)
    expect(await exists(jsm.streams.info(stream))).toBe(true)
    await stop(queue, consumer)
  })

  it('keeps at most maxKept notifications, the newest', async () => {
    const { stream, queue, taken, consume } = await open({ maxKept: 5 })
    const blocker = await block(stream)
    for (let i = 0; i < 12; i++) await queue.notify(`run_${i}`)
    await jsm.streams.delete(blocker)
    const consumer = await consume()
    await until('the kept notifications', async () => taken.length >= 5, 5000)
    // Published after them, and handed out in the stream's order: once it is taken, anything kept
    // before it has been handed out too.
    await queue.notify('run_last')
    await until('the notification published after them', async () => taken.includes('run_last'), 5000)
    expect(taken.filter((id) => id !== 'run_last').sort()).toEqual(['run_10', 'run_11', 'run_7', 'run_8', 'run_9'])
    await stop(queue, consumer)
  })
})
