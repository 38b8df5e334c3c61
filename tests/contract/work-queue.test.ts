import { jetstreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import { memoryWorkQueue } from '../../adapters/memory/work-queue.ts'
import { connectNats } from '../../adapters/nats/connection.ts'
import { natsWorkQueue } from '../../adapters/nats/work-queue.ts'
import { TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { describeWorkQueueContract } from './work-queue.contract.ts'

describeWorkQueueContract({ name: 'in-process', open: async () => memoryWorkQueue(), dispose: async () => {} })

if (TEST_NATS_URL) {
  const connections: NatsConnection[] = []
  const streams: string[] = []
  let n = 0
  describeWorkQueueContract({
    name: 'NATS JetStream',
    async open() {
      const nc = await connectNats(TEST_NATS_URL!, 'work-queue-contract')
      connections.push(nc)
      const stream = `T_WQ_${Date.now()}_${process.pid}_${++n}`
      streams.push(stream)
      return natsWorkQueue(nc, undefined, { stream })
    },
    async dispose() {
      const jsm = await jetstreamManager(connections[0])
      for (const stream of streams) await jsm.streams.delete(stream).catch(() => {})
      for (const nc of connections) await nc.close()
    },
  })
} else {
  warnSkipped('the NATS work-queue contract', 'AUTOMATON_TEST_NATS_URL')
}
