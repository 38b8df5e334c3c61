/** Execution-hook calls and waits that the hook suites share. */
import type { Received } from './receiver.ts'
import type { TestSystem } from './system.ts'

export interface CreatedHook {
  endpoint: { id: string; status: string; [k: string]: unknown }
  signingSecret: string
}

export async function createHook(t: TestSystem, body: Record<string, unknown>): Promise<CreatedHook> {
  const r = await t.call('POST', '/v1/execution-webhooks', { body: { name: 'hook', ...body } })
  if (r.status !== 200) throw new Error(`hook create failed: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.data
}

/** Polls the delivery log until `until` holds for the listed deliveries. */
export async function waitForDeliveries(
  t: TestSystem,
  query: string,
  until: (items: any[]) => boolean,
  timeoutMs = 10_000,
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await t.call('GET', `/v1/execution-webhooks/deliveries?limit=100&${query}`)
    if (r.status !== 200) throw new Error(`deliveries: ${r.status} ${JSON.stringify(r.body)}`)
    if (until(r.body.data.items)) return r.body.data.items
    if (Date.now() > deadline)
      throw new Error(`deliveries (${query}) did not settle: ${JSON.stringify(r.body.data.items).slice(0, 3000)}`)
    await Bun.sleep(20)
  }
}

export const settled = (items: any[]) =>
  items.length > 0 && items.every((d) => d.status === 'success' || d.status === 'failure')

/** The receiver's requests for one path, with their bodies parsed. */
export function requestsTo(requests: readonly Received[], path: string) {
  return requests
    .filter((r) => r.path === path)
    .map((r) => ({ ...r, json: JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, any> } }))
}
