/**
 * What the benches share: a server process's memory and CPU, the 2-node webhook workflow they
 * load, a receiver process, and a new organization with its owner's key in a system they open.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { System } from '../main.ts'
import { api, BUN, ROOT } from '../tests/helpers/process.ts'

/** Organization `name` in `system` (created when missing), and a read-write owner API key issued for it. */
export async function organizationWithKey(system: System, name: string): Promise<{ id: string; key: string }> {
  // `ensure`: the operator's organization is made by the system itself at start (AUTOMATON_OPERATOR_ORG).
  const org = await system.organizations.ensure(name)
  const issued = await system.apiKeys.issue({
    organizationId: org.id,
    name: 'bench',
    scope: 'read-write',
    role: 'owner',
    serviceAccountId: null,
    userId: null,
    createdBy: 'bench',
    expiresAt: null,
  })
  return { id: org.id, key: issued.key }
}

export const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10

/** Resident memory of a process (Linux), in bytes; 0 elsewhere. */
export const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}

/** CPU seconds (user and system, all threads) a process has used so far, from /proc; 0 where there is none. */
export const cpuSecondsOf = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/**
 * CPU seconds used so far by every process of one name (`postgres`: the server's backends and
 * its background processes), from /proc. Processes that exit between two readings take theirs
 * with them, so compare readings around a load whose connections stay open.
 */
export function cpuSecondsOfAll(name: string): number {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== name) continue
      total += cpuSecondsOf(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return total
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
  return (await api(url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, key)).body.data as {
    id: string
    triggerSecret: string
  }
}

/** A receiver in its own process (bench/hook-receiver.ts) that answers every request after `delayMs`. */
export async function startReceiver(delayMs: number) {
  const child = Bun.spawn([BUN, join(ROOT, 'bench', 'hook-receiver.ts'), String(delayMs)], {
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const port = Number(new TextDecoder().decode((await child.stdout.getReader().read()).value).trim())
  return { url: `http://127.0.0.1:${port}/hooks`, stop: () => child.kill('SIGKILL') }
}

/**
 * Creates and publishes a 2-node workflow whose first node waits for an HTTP answer (a POST to
 * `url`, then a `set-variable`): its runs are executed after admission, so they can queue.
 */
export async function publishHttpWorkflow(base: string, key: string, url: string) {
  const created = await api(base, 'POST', '/v1/workflows', key, {
    definition: {
      triggerNodeIds: ['root'],
      nodes: {
        root: { type: 'manual', children: ['a'] },
        a: {
          type: 'http-request',
          payload: { method: 'POST', url, body: { order: '{{$trigger.body.order.id}}' } },
          children: ['b'],
        },
        b: { type: 'set-variable', payload: { name: 'last', value: '{{$trigger.body.i}}' } },
      },
    },
  })
  if (created.status !== 200) throw new Error(`could not create the workflow: ${JSON.stringify(created.body)}`)
  return (await api(base, 'POST', `/v1/workflows/${created.body.data.id}/publish`, key)).body.data as {
    id: string
    triggerSecret: string
  }
}
