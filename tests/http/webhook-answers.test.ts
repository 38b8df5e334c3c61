/**
 * POST /v1/webhooks/{secret} answers alike however the secret is spelled in the URL: plain, or
 * percent-encoded (the front door answers the first, the framework's routes the second). Same
 * status, body (ids aside) and headers for a run started, a duplicate, an unknown secret, a body
 * too large, malformed JSON, a body that is not an object, JSON nested too deep, and a wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

const encoded = (secret: string) => [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')

/** An answer with what differs between two requests (ids, times) replaced. */
async function answerOf(response: Response) {
  const text = (await response.text())
    .replace(/"(eventId|id)":"[^"]+"/g, '"$1":"…"')
    .replace(/"runIds":\["[^"]+"\]/g, '"runIds":["…"]')
  const headers = [...response.headers].filter(([name]) => name !== 'date' && name !== 'content-length')
  return { status: response.status, body: JSON.parse(text), headers: headers.sort() }
}

const JSON_TYPE = { 'content-type': 'application/json' }

const CASES: Array<[string, { headers?: Record<string, string>; body?: string }, number]> = [
  ['a run started', { headers: JSON_TYPE, body: '{"order":{"id":"A-1"}}' }, 200],
  ['a form', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2' }, 200],
  ['no body', {}, 200],
  ['a wait for the run', { headers: { ...JSON_TYPE, prefer: 'wait=5' }, body: '{}' }, 200],
  ['a body too large', { headers: JSON_TYPE, body: JSON.stringify({ a: 'x'.repeat(3000) }) }, 413],
  ['malformed JSON', { headers: JSON_TYPE, body: '{"a":' }, 400],
  ['an array', { headers: JSON_TYPE, body: '[1,2]' }, 400],
  ['a text body', { headers: { 'content-type': 'text/plain' }, body: 'hello' }, 400],
  ['JSON nested too deep', { headers: JSON_TYPE, body: `${'['.repeat(100)}${']'.repeat(100)}` }, 400],
]

for (const kind of storeKinds())
  describe(`webhook answers, plain or percent-encoded secret (${kind})`, () => {
    let t: TestSystem
    let secret: string
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_MAX_BODY_BYTES: '2048' })
      const live = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } },
        },
      })
      secret = live.triggerSecret
    })
    afterAll(() => t.close())

    const post = (spelled: string, init: { headers?: Record<string, string>; body?: string }) =>
      t.system.app.handle(
        new Request(`http://localhost/v1/webhooks/${spelled}`, {
          method: 'POST',
          headers: { 'x-request-id': 'req-same', ...init.headers },
          body: init.body,
        }),
      )

    for (const [name, init, status] of CASES)
      it(`answers ${name} the same (${status})`, async () => {
        const plain = await answerOf(await post(secret, init))
        const spelled = await answerOf(await post(encoded(secret), init))
        expect(plain.status).toBe(status)
        expect(spelled).toEqual(plain)
      })

    it('answers an unknown secret and a repeated idempotency key the same', async () => {
      const unknown = { headers: JSON_TYPE, body: '{}' }
      const plainUnknown = await answerOf(await post('no-such-secret', unknown))
      expect(plainUnknown.status).toBe(404)
      expect(await answerOf(await post(encoded('no-such-secret'), unknown))).toEqual(plainUnknown)
      const keyed = { headers: { ...JSON_TYPE, 'idempotency-key': 'once' }, body: '{}' }
      const first = await answerOf(await post(secret, keyed))
      const again = await answerOf(await post(encoded(secret), keyed))
      const plainAgain = await answerOf(await post(secret, keyed))
      expect(first.body.data.action).toBe('triggered')
      expect(again.body.data).toMatchObject({ action: 'skipped', reason: 'duplicate' })
      expect(plainAgain).toEqual(again)
    })
  })
