/** Definitions and calls that workflow and engine tests share. */
import { expect } from 'bun:test'
import type { TestSystem } from './system.ts'
import { isTerminal } from '../../core/domain/run-lifecycle.ts'

export const linear = (
  nodes: Record<string, { type: string; payload?: unknown; [k: string]: unknown }>,
  order: string[],
) => {
  const out: Record<string, unknown> = {
    root: { type: 'manual', payload: {}, children: order.length ? [order[0]] : [] },
  }
  order.forEach((id, i) => {
    out[id] = { ...nodes[id], children: order[i + 1] ? [order[i + 1]] : [] }
  })
  return { triggerNodeIds: ['root'], nodes: out }
}

/** A manual trigger, an HTTP call to `url` (`call`) and a log after it (`done`). */
export const callingOut = (url: string) => ({
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['call'] },
    call: { type: 'http-request', payload: { url }, children: ['done'] },
    done: { type: 'log', payload: { message: 'done' } },
  },
})

export async function createWorkflow(t: TestSystem, body: Record<string, unknown>, key?: string) {
  const r = await t.call('POST', '/v1/workflows', { body, key })
  if (r.status !== 200) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.data
}

export async function publish(t: TestSystem, id: string, key?: string) {
  const r = await t.call('POST', `/v1/workflows/${id}/publish`, { key })
  if (r.status !== 200) throw new Error(`publish failed: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.data
}

export async function createLive(t: TestSystem, body: Record<string, unknown>, key?: string) {
  const w = await createWorkflow(t, body, key)
  return publish(t, w.id, key)
}

/** Polls a run until its status is terminal (or `until` holds). */
export async function waitForRun(
  t: TestSystem,
  runId: string,
  until: (run: any) => boolean = (r) => isTerminal(r.status),
  timeoutMs = 10_000,
  key?: string,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await t.call('GET', `/v1/runs/${runId}`, key === undefined ? {} : { key })
    if (r.status === 200 && until(r.body.data)) return r.body.data
    if (Date.now() > deadline)
      throw new Error(`run ${runId} did not settle: ${JSON.stringify(r.body.data ?? r.body).slice(0, 2000)}`)
    await Bun.sleep(15)
  }
}

export async function runAndWait(
  t: TestSystem,
  workflowId: string,
  payload: Record<string, unknown> = {},
  timeoutMs?: number,
) {
  const r = await t.call('POST', `/v1/workflows/${workflowId}/run`, { body: { payload } })
  expect(r.status).toBe(200)
  return waitForRun(t, r.body.data.runId, undefined, timeoutMs)
}
