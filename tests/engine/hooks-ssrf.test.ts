/**
 * The SSRF guard at send time: an execution hook whose name rebinds to loopback after it was
 * accepted is refused when sent, and the HTTP nodes refuse the same probes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createGuardedHttpClient } from '../../adapters/http/guarded-client.ts'
import { createHook, settled, waitForDeliveries } from '../helpers/hooks.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createWorkflow, linear, runAndWait } from '../helpers/workflows.ts'

/** A name that resolves to a public address `publicAnswers` times, then to 127.0.0.1. */
function rebindingDns(publicAnswers: number) {
  const answers: string[] = []
  return {
    answers,
    resolve: async (host: string) => {
      if (host !== 'rebind.example') throw Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' })
      const address = answers.length < publicAnswers ? '93.184.215.14' : '127.0.0.1'
      answers.push(address)
      return [address]
    },
  }
}

describe('the SSRF guard when hooks and HTTP nodes send', () => {
  let t: TestSystem
  let receiver: Receiver
  // Public for the check at creation and the check before sending; loopback when connecting.
  const dns = rebindingDns(2)

  beforeAll(async () => {
    receiver = startReceiver()
    t = await openTestSystem(
      'sqlite',
      { AUTOMATON_HOOK_ALLOW_HTTP: 'true' },
      { http: createGuardedHttpClient({ resolve: dns.resolve }) },
    )
  })
  afterAll(async () => {
    await t.close()
    await receiver.stop()
  })

  it('refuses a hook target that rebinds to loopback after it was accepted, as a failed attempt', async () => {
    const port = new URL(receiver.url).port
    const hook = await createHook(t, {
      url: `http://rebind.example:${port}/hook`,
      subscribedEventTypes: ['run.succeeded'],
      maxRetries: 0,
    })
    expect(dns.answers).toEqual(['93.184.215.14'])
    const w = await createWorkflow(t, { definition: linear({ a: { type: 'log', payload: { message: 'x' } } }, ['a']) })
    const run = await runAndWait(t, w.id)
    const [delivery] = await waitForDeliveries(t, `endpointId=${hook.endpoint.id}&runId=${run.id}`, settled)
    expect(delivery).toMatchObject({ status: 'failure', responseStatus: null })
    expect(delivery.errorMessage).toContain('refused by the SSRF guard')
    expect(delivery.errorMessage).toContain('127.0.0.1')
    expect(dns.answers.at(-1)).toBe('127.0.0.1')
    expect(receiver.requests).toHaveLength(0)
  })

  it('refuses the same probes from the http-request and send-webhook nodes', async () => {
    const port = new URL(receiver.url).port
    const probes = {
      loopback: `http://127.0.0.1:${port}/x`,
      private: 'http://10.0.0.1/x',
      v6: `http://[::1]:${port}/x`,
      name: `http://localhost:${port}/x`,
      rebound: `http://rebind.example:${port}/x`,
    }
    const nodes: Record<string, { type: string; payload: unknown; onError: 'continue' }> = {
      metadata: {
        type: 'send-webhook',
        payload: { url: 'http://169.254.169.254/latest/meta-data', body: { a: 1 } },
        onError: 'continue',
      },
    }
    for (const [id, url] of Object.entries(probes))
      nodes[id] = { type: 'http-request', payload: { url }, onError: 'continue' }
    const w = await createWorkflow(t, { definition: linear(nodes, Object.keys(nodes)) })
    const run = await runAndWait(t, w.id)
    for (const id of Object.keys(nodes)) {
      expect(run.nodes[id].status).toBe('failure')
      expect(run.nodes[id].error).toMatch(/is an? [a-z0-9-]+ address|names a private or internal host/)
    }
    expect(receiver.requests).toHaveLength(0)
  })
})
