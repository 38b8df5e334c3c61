/**
 * The work-queue contract: what every WorkQueue adapter promises (core/ports/work-queue.ts).
 * Run against the in-process queue and JetStream by work-queue.test.ts. Delivery is at least
 * once: a notification reaches `take`, also when it was sent before anyone consumed, at most
 * `concurrency` at once, again when `take` rejects, and never after the consumer stopped.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import type { WorkQueue } from '../../core/ports/work-queue.ts'

export interface WorkQueueFactory {
  name: string
  /** A fresh, empty queue (its own stream on NATS). */
  open(): Promise<WorkQueue>
  dispose(): Promise<void>
}

async function eventually(check: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await Bun.sleep(5)
  }
}

export function describeWorkQueueContract(factory: WorkQueueFactory) {
  describe(`work-queue contract: ${factory.name}`, () => {
    afterAll(() => factory.dispose())

    it('hands every notification to take, also those sent before anyone consumed', async () => {
      const queue = await factory.open()
      await queue.notify('run_before_1')
      await queue.notify('run_before_2')
      const taken: string[] = []
      const consumer = await queue.consume(async (runId) => void taken.push(runId), 4)
      for (let i = 0; i < 20; i++) await queue.notify(`run_after_${i}`)
      await eventually(() => taken.length >= 22, 'every notification taken')
      expect(new Set(taken)).toEqual(
        new Set(['run_before_1', 'run_before_2', ...Array.from({ length: 20 }, (_, i) => `run_after_${i}`)]),
      )
      await consumer.stop()
      await queue.close()
    })

    it('takes at most `concurrency` at once', async () => {
      const queue = await factory.open()
      let running = 0
      let most = 0
      const done: string[] = []
      const consumer = await queue.consume(async (runId) => {
        running++
        most = Math.max(most, running)
        // Work that takes a moment, so that takings overlap (pacing: nothing waits on it).
        await Bun.sleep(20)
        running--
        done.push(runId)
      }, 3)
      for (let i = 0; i < 12; i++) await queue.notify(`run_c_${i}`)
      await eventually(() => new Set(done).size === 12, 'all twelve taken')
      expect(most).toBeGreaterThanOrEqual(1)
      expect(most).toBeLessThanOrEqual(3)
      await consumer.stop()
      await queue.close()
    })

    it('hands a notification out again when take rejects', async () => {
      const queue = await factory.open()
      const attempts = new Map<string, number>()
      const consumer = await queue.consume(async (runId) => {
        const n = (attempts.get(runId) ?? 0) + 1
        attempts.set(runId, n)
        if (n === 1) throw new Error('not now')
      }, 2)
      await queue.notify('run_retry')
      await eventually(() => (attempts.get('run_retry') ?? 0) >= 2, 'the notification handed out again', 10_000)
      await consumer.stop()
      await queue.close()
    })

    it('takes nothing after the consumer stopped; a later consumer gets what came meanwhile', async () => {
      const queue = await factory.open()
      const first: string[] = []
      const consumer = await queue.consume(async (runId) => void first.push(runId), 2)
      await queue.notify('run_s_1')
      await eventually(() => first.includes('run_s_1'), 'the first notification')
      await consumer.stop()
      await queue.notify('run_s_2')
      const second: string[] = []
      const next = await queue.consume(async (runId) => void second.push(runId), 2)
      await eventually(() => second.includes('run_s_2'), 'the later consumer got it')
      // Only once the later consumer has it: the stopped one never did.
      expect(first).not.toContain('run_s_2')
      await next.stop()
      await queue.close()
    })
  })
}
