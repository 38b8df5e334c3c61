import type { NatsConnection } from '@nats-io/transport-node'
import { memoryBus } from '../../adapters/memory/bus.ts'
import { connectNats } from '../../adapters/nats/connection.ts'
import { natsBus } from '../../adapters/nats/bus.ts'
import { TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { describeBusContract } from './bus.contract.ts'

describeBusContract({ name: 'in-process', open: async () => memoryBus(), dispose: async () => {} })

if (TEST_NATS_URL) {
  const connections: NatsConnection[] = []
  const open = async () => {
    const nc = await connectNats(TEST_NATS_URL!, 'bus-contract')
    connections.push(nc)
    return natsBus(nc)
  }
  describeBusContract({
    name: 'NATS',
    open,
    peer: open,
    dispose: async () => {
      for (const nc of connections) await nc.close()
    },
  })
} else {
  warnSkipped('the NATS bus contract', 'AUTOMATON_TEST_NATS_URL')
}
