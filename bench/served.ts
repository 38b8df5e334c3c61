/** What the benches that drive a real server process share: its memory, and the 2-node webhook workflow they load. */
import { readFileSync } from 'node:fs'
import { api } from '../tests/helpers/process.ts'

export const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10

/** Resident memory of a process (Linux), in bytes; 0 elsewhere. */
export const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}

/** Creates and publishes the 2-node workflow (a `log`, a `set-variable`) that a webhook starts; answers the live workflow. */
export async function publishTwoNodeWorkflow(url: string, key: string) {
  const created = await api(url, 'POST', '/v1/workflows', key, {
    definition: {
      triggerNodeIds: ['root'],
      nodes: {
        root: { type: 'manual', children: ['a'] },
        a: { type: 'log', payload: { message: 'order {{$trigger.body.order.id}}' }, children: ['b'] },
        b: { type: 'set-variable', payload: { name: 'last', value: '{{$trigger.body.i}}' } },
      },
    },
  })
  return (await api(url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, key)).body.data as { id: string; triggerSecret: string }
}
