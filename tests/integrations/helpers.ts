/** Signed requests to the integration webhooks, computed the way each platform signs them, and small assertions they share. */
import { expect } from 'bun:test'
import { hmacSha256, toHex } from '../../core/security/hash.ts'
import type { CallResult, TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

export const hmacHex = async (key: string, message: string) => toHex(await hmacSha256(key, message))
export const unixNow = () => Math.floor(Date.now() / 1000)

/** `t=<ts>,v1=<sig>[,v1=<sig>…]`, one v1 per secret. */
export async function payproviderSignature(secrets: string[], rawBody: string, timestamp = unixNow()) {
  const v1 = await Promise.all(secrets.map(async (s) => `v1=${await hmacHex(s, `${timestamp}.${rawBody}`)}`))
  return `t=${timestamp},${v1.join(',')}`
}

export function paymentEvent(
  id: string,
  amount = 2500,
  type = 'payment_intent.succeeded',
  extra: Record<string, unknown> = {},
) {
  return {
    id,
    type,
    created: unixNow(),
    data: { object: { id: `pi_${id}`, amount, currency: 'usd', metadata: { orderId: `order-${id}` }, ...extra } },
  }
}

/** Posts a payment provider event signed with `secrets` (or with a given header). */
export async function postPayment(
  t: TestSystem,
  orgId: string,
  event: unknown,
  secrets: string[],
  options: { query?: string; header?: string; timestamp?: number } = {},
) {
  const rawBody = JSON.stringify(event)
  const header = options.header ?? (await payproviderSignature(secrets, rawBody, options.timestamp))
  return t.call('POST', `/v1/orgs/${orgId}/integrations/payprovider${options.query ?? ''}`, {
    key: null,
    rawBody,
    headers: { 'content-type': 'application/json', 'payprovider-signature': header },
  })
}

export async function chatappHeaders(secret: string, rawBody: string, timestamp = unixNow()) {
  return {
    'x-chatapp-request-timestamp': String(timestamp),
    'x-chatapp-signature': `v0=${await hmacHex(secret, `v0:${timestamp}:${rawBody}`)}`,
  }
}

export async function postChat(
  t: TestSystem,
  body: unknown,
  secret: string,
  options: { timestamp?: number; headers?: Record<string, string>; contentType?: string } = {},
) {
  const rawBody = typeof body === 'string' ? body : JSON.stringify(body)
  const headers = {
    'content-type': options.contentType ?? 'application/json',
    ...(await chatappHeaders(secret, rawBody, options.timestamp)),
    ...options.headers,
  }
  return t.call('POST', '/v1/integrations/chatapp/events', { key: null, rawBody, headers })
}

/** A live workflow that starts on `triggerType` (configured with `payload`) and logs `message`. */
export function triggered(
  t: TestSystem,
  triggerType: string,
  payload: Record<string, unknown>,
  message = 'got {{$trigger.body.id}}',
  extra: Record<string, unknown> = {},
  key?: string,
) {
  return createLive(
    t,
    {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: triggerType, payload, children: ['say'], ...extra },
          say: { type: 'log', payload: { message } },
        },
      },
    },
    key,
  )
}

export async function runCount(t: TestSystem, workflowId?: string): Promise<number> {
  const row = workflowId
    ? await t.system.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM runs WHERE workflow_id = $1', [workflowId])
    : await t.system.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM runs WHERE organization_id = $1', [t.orgId])
  return Number(row?.n ?? 0)
}

/** A refusal: the status, the specification's error body, and nothing started. */
export async function expectRefused(t: TestSystem, r: CallResult, status: number, message: RegExp, runsBefore: number) {
  expect(r.status).toBe(status)
  // A malformed request lists its problems in `details`, not only in the message.
  if (status === 400) expect(r.body.details.length).toBeGreaterThan(0)
  expect(r.body).toMatchObject({ code: status, details: expect.any(Array), requestId: expect.any(String) })
  expect(r.body.message).toMatch(message)
  expect(await runCount(t)).toBe(runsBefore)
}

export const WALLET = '0x1111111111111111111111111111111111111111'
export const OTHER_WALLET = '0x2222222222222222222222222222222222222222'
export const TOKEN = '0x3333333333333333333333333333333333333333'

/** An erc20 transfer body as the erc20-* triggers take it. */
export function transfer(to: string, amount: string, hashDigit = 'a', from = OTHER_WALLET) {
  return {
    chainId: 1,
    tokenAddress: TOKEN,
    tokenSymbol: 'USDC',
    from,
    to,
    amount,
    transactionHash: `0x${hashDigit.repeat(64)}`,
    blockNumber: 100,
    logIndex: 0,
  }
}

/** The organization's webhook secret (made on first read). */
export async function webhookSecret(t: TestSystem, orgId = t.orgId, key?: string): Promise<string> {
  const r = await t.call('GET', `/v1/organizations/${orgId}/webhook-secret`, { key })
  if (r.status !== 200) throw new Error(`webhook secret: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.data.webhookSecret
}

export function postSource(t: TestSystem, orgId: string, secret: string | null, body: unknown) {
  const query = secret === null ? '' : `?secret=${encodeURIComponent(secret)}`
  return t.call('POST', `/v1/orgs/${orgId}/integrations/eventsource${query}`, { key: null, body })
}

/** The same system, calling with another organization's key by default. */
export function as(t: TestSystem, org: { orgId: string; key: string }): TestSystem {
  return {
    ...t,
    orgId: org.orgId,
    key: org.key,
    call: (method, path, options = {}) =>
      t.call(method, path, { ...options, key: options.key === undefined ? org.key : options.key }),
  }
}
