/**
 * The bus contract: what every Bus adapter promises. Run against the in-process bus and NATS by
 * bus.test.ts. `open` gives a bus; `peer` (when the adapter spans processes) gives a second,
 * independent bus on the same backbone, as another process would have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Bus, BusMessage } from '../../core/ports/bus.ts'

export interface BusFactory {
  name: string
  open(): Promise<Bus>
  peer?: () => Promise<Bus>
  dispose(): Promise<void>
}

function collect<T = unknown>(bus: Bus, pattern: string) {
  const got: BusMessage<T>[] = []
  const sub = bus.subscribe<T>(pattern, (m) => got.push(m))
  return { got, sub }
}

async function eventually(check: () => boolean, timeoutMs = 2000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await Bun.sleep(5)
  }
}

/**
 * Resolves once every subscription taken on `buses` is in force: a ping is answered after
 * everything sent before it (a NATS server has the subscriptions; the in-process bus has them at once).
 */
const subscribed = (...buses: Bus[]) => Promise.all(buses.map((b) => b.ping()))

export function describeBusContract(factory: BusFactory) {
  describe(`bus contract: ${factory.name}`, () => {
    let bus: Bus
    beforeAll(async () => {
      bus = await factory.open()
    })
    afterAll(() => factory.dispose())

    it('delivers JSON data to exact and wildcard subscriptions', async () => {
      const exact = collect(bus, 'evt.o1.w1.r1')
      const one = collect(bus, 'evt.o1.*.r1')
      const rest = collect(bus, 'evt.o1.>')
      const other = collect(bus, 'evt.o2.>')
      await subscribed(bus)
      bus.publish('evt.o1.w1.r1', { n: 1, list: [1, 'two'], nested: { ok: true } })
      await eventually(() => exact.got.length === 1 && one.got.length === 1 && rest.got.length === 1)
      expect(exact.got[0]).toEqual({ subject: 'evt.o1.w1.r1', data: { n: 1, list: [1, 'two'], nested: { ok: true } } })
      // A marker published after it must reach `other` and be the only thing it got.
      bus.publish('evt.o2.w1.marker', 'marker')
      await eventually(() => other.got.length >= 1)
      expect(other.got.map((m) => m.data)).toEqual(['marker'])
      for (const c of [exact, one, rest, other]) c.sub.unsubscribe()
    })

    it('stops delivering after unsubscribe, and keeps delivering to the others', async () => {
      const a = collect(bus, 'topic.x')
      const b = collect(bus, 'topic.x')
      await subscribed(bus)
      bus.publish('topic.x', 1)
      await eventually(() => a.got.length === 1 && b.got.length === 1)
      a.sub.unsubscribe()
      bus.publish('topic.x', 2)
      bus.publish('topic.x', 3)
      // b got what was published after the unsubscribe, and later still: a got none of it.
      await eventually(() => b.got.length === 3)
      expect(a.got.map((m) => m.data)).toEqual([1])
      b.sub.unsubscribe()
    })

    it('keeps the order of one publisher on one subject', async () => {
      const c = collect<number>(bus, 'ordered.s')
      await subscribed(bus)
      for (let i = 0; i < 500; i++) bus.publish('ordered.s', i)
      await eventually(() => c.got.length === 500)
      expect(c.got.map((m) => m.data)).toEqual(Array.from({ length: 500 }, (_, i) => i))
      c.sub.unsubscribe()
    })

    it("keeps the order of one turn's messages across subjects, whatever their size", async () => {
      const all = collect<{ s: string; i: number }>(bus, 'turn.>')
      const a = collect<{ s: string; i: number }>(bus, 'turn.a')
      const peerBus = factory.peer ? await factory.peer() : null
      const far = peerBus ? collect<{ s: string; i: number; pad?: string }>(peerBus, 'turn.>') : null
      await subscribed(bus, ...(peerBus ? [peerBus] : []))
      // Published in one turn: runs of one subject (batched where the bus batches) between others.
      const sent = [...['a', 'a', 'a', 'b', 'a', 'c', 'c', 'a'].map((s, i) => ({ s, i }))]
      for (const m of sent) bus.publish(`turn.${m.s}`, m)
      // More than a megabyte in one turn on one subject: NATS's default limit for one message.
      const pad = 'x'.repeat(10_000)
      for (let i = 0; i < 120; i++) bus.publish('turn.big', { s: 'big', i, pad })
      await eventually(
        () => all.got.length === sent.length + 120 && (!far || far.got.length === sent.length + 120),
        5000,
      )
      expect(all.got.slice(0, sent.length).map((m) => m.data)).toEqual(sent)
      expect(all.got.slice(0, sent.length).map((m) => m.subject)).toEqual(sent.map((m) => `turn.${m.s}`))
      expect(a.got.map((m) => m.data.i)).toEqual([0, 1, 2, 4, 7])
      expect(all.got.slice(sent.length).map((m) => (m.data as { i: number }).i)).toEqual(
        Array.from({ length: 120 }, (_, i) => i),
      )
      if (far) expect(far.got.map((m) => m.data.i)).toEqual(all.got.map((m) => m.data.i))
      for (const c of [all, a, ...(far ? [far] : [])]) c.sub.unsubscribe()
      await peerBus?.close()
    })

    it('survives a throwing handler', async () => {
      const bad = bus.subscribe('boom', () => {
        throw new Error('handler bug')
      })
      const good = collect(bus, 'boom')
      await subscribed(bus)
      bus.publish('boom', 'x')
      await eventually(() => good.got.length === 1)
      bad.unsubscribe()
      good.sub.unsubscribe()
    })

    it('answers ping while connected', async () => {
      await bus.ping()
    })

    it.skipIf(!factory.peer)('carries messages between processes', async () => {
      const other = await factory.peer!()
      const got = collect(other, 'cross.>')
      await subscribed(other)
      bus.publish('cross.a', { from: 'first' })
      await eventually(() => got.got.length === 1)
      expect(got.got[0].data).toEqual({ from: 'first' })
      got.sub.unsubscribe()
      await other.close()
    })
  })
}
