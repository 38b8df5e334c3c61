/**
 * What the flow control tests share: a system that executes one run at a time (so the others wait
 * to start), a receiver whose calls are held behind a gate, workflows whose one node calls the
 * receiver, runs triggered in batches, the starts counted by what each call carried, and the
 * scaled set-up (Postgres and NATS, an API process and two workers).
 */
import { expect } from 'bun:test'
import type { Clock } from '../../core/ports/clock.ts'
import type { Receiver } from './receiver.ts'
import { TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from './services.ts'
import { openTestSystem, type TestSystem } from './system.ts'
import { linear } from './workflows.ts'

/** The environment of a system that calls the local receiver and executes one run at a time. */
export const ONE_AT_A_TIME = { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32', AUTOMATON_WORKER_CONCURRENCY: '1' }

/** A run that holds its place in execution: a long delay keeps it there until it is cancelled. */
export const hold = linear({ pause: { type: 'delay', payload: { delayMs: 600_000 } } }, ['pause'])

/** A workflow of one HTTP call to the receiver's `/call?{query}` (the query may hold templates). */
export const callingReceiver = (receiver: Receiver, query: string) =>
  linear({ call: { type: 'http-request', payload: { url: `${receiver.url}/call?${query}` } } }, ['call'])

/** Holds every call to the receiver until the returned function opens the gate. */
export function gateCalls(receiver: Receiver): () => void {
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  receiver.respond(async () => {
    await gate
    return Response.json({ ok: true })
  })
  return open
}

/** The value of query parameter `name` of each call the receiver got, in the order they came. */
export const calledWith = (receiver: Receiver, name: string) =>
  receiver.requests.map((r) => new URL(r.path, receiver.url).searchParams.get(name))

/** Triggers `n` runs by the webhook of `secret`, a few dozen requests at a time; each must start a run. */
export async function triggerRuns(t: TestSystem, secret: string, n: number) {
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, () =>
      t.call('POST', `/v1/webhooks/${secret}`, { key: null, body: {} }),
    )
    for (const r of await Promise.all(batch)) expect(r.body.data.action).toBe('triggered')
  }
}

/** Whether the scaled tests run (Postgres and NATS are given); says which is missing when not. */
export function scaledTestsRun(what: string): boolean {
  const scaled = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
  if (!scaled) warnSkipped(what, TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL')
  return scaled
}

/**
 * An API process and two workers on Postgres and NATS (a stream of its own, named from `stream`),
 * calling the local receiver; `env` adds to their environment, `clock` is shared by the three.
 */
export async function openScaled(stream: string, env: Record<string, string>, clock?: Clock) {
  const api = await openTestSystem(
    'postgres',
    {
      AUTOMATON_NATS_URL: TEST_NATS_URL!,
      AUTOMATON_NATS_STREAM: `T_${stream}_${Date.now()}`,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_FINISH_AT_ADMISSION: 'false',
      ...env,
    },
    { role: 'api', clock },
  )
  const workers: TestSystem[] = []
  for (let i = 0; i < 2; i++) workers.push(await api.openSibling({}, { role: 'worker', clock }))
  return { api, workers }
}
