/**
 * The receiver example of docs/hooks.md, run as it is printed, against real deliveries: it
 * accepts them, processes each event once, and refuses forged and replayed requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { importSigningKey, sign } from '../../core/security/webhook-signature.ts'
import { createHook, settled, waitForDeliveries } from '../helpers/hooks.ts'
import { BUN, ROOT } from '../helpers/process.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { tempDir } from '../helpers/tmp.ts'
import { createWorkflow, linear, runAndWait } from '../helpers/workflows.ts'

function receiverExample(): string {
  const text = readFileSync(join(ROOT, 'docs', 'hooks.md'), 'utf8')
  const marker = text.indexOf('<!-- receiver example')
  const start = text.indexOf('```ts\n', marker) + '```ts\n'.length
  return text.slice(start, text.indexOf('\n```', start))
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

describe('the receiver example of docs/hooks.md', () => {
  const dir = tempDir()
  let t: TestSystem
  let child: ReturnType<typeof Bun.spawn>
  let output = ''
  let url: string
  let hook: { endpoint: { id: string }; signingSecret: string }

  beforeAll(async () => {
    t = await openTestSystem('sqlite', { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' })
    const port = freePort()
    url = `http://127.0.0.1:${port}/automaton`
    hook = await createHook(t, { url })
    const file = join(dir.path, 'receiver.ts')
    writeFileSync(file, receiverExample())
    child = Bun.spawn([BUN, file], {
      env: { PATH: process.env.PATH ?? '', AUTOMATON_HOOK_SECRET: hook.signingSecret, PORT: String(port) },
      stdout: 'pipe',
      stderr: 'inherit',
    })
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        output += decoder.decode(value)
      }
    })()
    const deadline = Date.now() + 10_000
    while (!output.includes('listening')) {
      if (Date.now() > deadline) throw new Error(`the example receiver did not start: ${output}`)
      await Bun.sleep(20)
    }
  }, 30_000)
  afterAll(async () => {
    child?.kill()
    await t.close()
    dir.remove()
  })

  /** The receiver prints before it answers, but its output reaches this process a moment later. */
  const printed = async (what: string, check: () => boolean) => {
    const deadline = Date.now() + 10_000
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`the example receiver never printed ${what}: ${output}`)
      await Bun.sleep(10)
    }
  }

  it('verifies real deliveries and processes each event once, replays included', async () => {
    const w = await createWorkflow(t, { definition: linear({ a: { type: 'log', payload: { message: 'x' } } }, ['a']) })
    const run = await runAndWait(t, w.id)
    const deliveries = await waitForDeliveries(
      t,
      `endpointId=${hook.endpoint.id}&runId=${run.id}`,
      (items) => items.length === 5 && settled(items),
    )
    expect(deliveries.map((d) => [d.status, d.responseStatus])).toEqual(Array(5).fill(['success', 204]))
    const lines = () => output.split('\n').filter((l) => l.includes(`run=${run.id}`))
    await printed('five lines', () => lines().length >= 5)
    expect(lines()).toHaveLength(5)
    expect(lines().some((l) => l.startsWith('received run.succeeded') && l.includes('status=success'))).toBe(true)

    const replay = await t.call('POST', `/v1/execution-webhooks/deliveries/${deliveries[0].id}/replay`)
    await waitForDeliveries(
      t,
      `endpointId=${hook.endpoint.id}&runId=${run.id}`,
      (items) => items.length === 6 && settled(items),
    )
    expect(
      (await t.call('GET', `/v1/execution-webhooks/deliveries/${replay.body.data.id}`)).body.data.responseStatus,
    ).toBe(204)
    // A later event's line proves the receiver's output up to it has arrived: the replay printed nothing.
    const marker = await signedPost('evt_after_replay', { type: 'run.succeeded', data: { runId: 'run_marker' } })
    expect(marker.status).toBe(204)
    await printed('the later event', () => output.includes('run=run_marker'))
    expect(lines()).toHaveLength(5)
  })

  /** Posts `event` to the receiver as a delivery `id`, signed at `timestamp` (now by default) unless a `signature` is given. */
  async function signedPost(
    id: string,
    event: { type: string; data: { runId: string } },
    options: { timestamp?: number; signature?: string } = {},
  ) {
    const body = JSON.stringify({ ...event, timestamp: new Date().toISOString() })
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000)
    const signature = options.signature ?? (await sign(await importSigningKey(hook.signingSecret), id, timestamp, body))
    return fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
    })
  }

  it('refuses a forged signature and a replay of an old delivery', async () => {
    const event = { type: 'run.failed', data: { runId: 'run_forged' } }
    const forged = await signedPost('evt_1', event, { signature: 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' })
    expect(forged.status).toBe(401)
    const old = await signedPost('evt_1', event, { timestamp: Math.floor(Date.now() / 1000) - 600 })
    expect(old.status).toBe(401)
    expect((await signedPost('evt_1', event)).status).toBe(204)
    // The genuine delivery's line is the only one: the two refused before it printed nothing.
    await printed('the genuine delivery', () => output.includes('run=run_forged'))
    expect(output.split('\n').filter((l) => l.includes('run=run_forged'))).toHaveLength(1)
  })
})
