/**
 * The sustained benchmark (bench/sustained.ts) with a workflow that calls something: its middle
 * node is an `http-request` POST to a bare local receiver (bench/hook-receiver.ts, answering at
 * once, in its own process), so every run goes past admission to the executor and waits on I/O.
 * Same load, same stores, same figures: runs per second against the bare ceiling measured in the
 * same run, answer p99, server CPU per run, and how long after the load's end the last run
 * finished (target: within 1 s).
 *   bun bench/sustained-http.ts [--scale 0.5] [--profile] [--store sqlite|postgres]
 */
import type { Result } from './store-writes.ts'
import { startReceiver } from './served.ts'
import { optionsFromArgs, print, type SustainedOptions, sustain } from './sustained.ts'

export async function run(options: SustainedOptions = {}): Promise<Result[]> {
  const receiver = await startReceiver(0)
  try {
    return await sustain(
      {
        runs: '3-node run with an http-request',
        tag: 'sustained-http',
        env: { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' },
        nodes: {
          root: { type: 'manual', children: ['call'] },
          call: {
            type: 'http-request',
            payload: { method: 'POST', url: receiver.url, body: { order: '{{$trigger.body.order.id}}' } },
            children: ['log'],
          },
          log: { type: 'log', payload: { message: 'order {{$trigger.body.order.id}}: {{call.result.status}}' } },
        },
      },
      options,
    )
  } finally {
    receiver.stop()
  }
}

if (import.meta.main) print(await run(optionsFromArgs(process.argv)))
