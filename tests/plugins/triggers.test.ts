/** The built-in trigger catalog: every trigger type of the specification's table, with real schemas and matching. */
import { describe, expect, it } from 'bun:test'
import { createRegistry } from '../../core/plugin/registry.ts'
import { BUILT_IN_PLUGINS } from '../../plugins/index.ts'
import { matchTrigger, matchWait } from '../../runtime/testing/index.ts'

const registry = createRegistry(BUILT_IN_PLUGINS)
const trigger = (type: string) => {
  const found = registry.trigger(type)
  if (!found) throw new Error(`no trigger ${type}`)
  return found
}

/** The specification's table with our platform words (docs/catalog.md). */
const SPEC_TRIGGER_TYPES = [
  'cronjob',
  'schedule',
  'token-price-cexes',
  'evm-log',
  'manual',
  'approval',
  'erc20-receive',
  'erc20-send',
  'eth-receive',
  'eth-send',
  'exchange-listing',
  'solana-transaction',
  'situation-fired',
  'email-new-email-received',
  'email-new-email-matching-criteria',
  ...[
    'mentions',
    'new-reaction-added',
    'new-message-in-channels',
    'new-channel-created',
    'new-direct-message',
    'new-keyword-mention',
    'new-user-added',
    'new-user-mention',
    'new-interaction-event',
  ].map((e) => `chatapp-${e}`),
  'messenger-channel',
  'messenger-new-interaction-event',
  'mailapp-new-email-received',
  'mailapp-new-email-matching-search',
  'predictmarket-user-bet',
  'predictmarket-market-trade',
  'predictmarket-new-market',
  'predictmarket-market-close',
  'eventmarket-market-trade',
  'eventmarket-new-market',
  'eventmarket-market-close',
  'webshop-order-created',
  'webshop-order-paid',
  'webshop-inventory-level-updated',
  'spendapp-new-transaction',
  'spendapp-transaction-status-updated',
  'spendapp-transfer-payment-updated',
  'payprovider-payment-receive',
  'paygateway-event',
  'paylink-payment-received',
  'paylink-checkout-received',
  'crosschain',
  'social-new-cast',
  'social-new-follower',
  'social-new-reaction',
  'microblog-new-tweet',
  ...['price-alert', 'trade', 'user-fill', 'liquidation', 'position-change', 'transfer'].map((e) => `perpdex-${e}`),
  'marketdata-options-flow-alerts',
  'marketdata-market-news',
]
const PLATFORM_WORDS = [
  'chatapp',
  'messenger',
  'mailapp',
  'predictmarket',
  'eventmarket',
  'webshop',
  'spendapp',
  'payprovider',
  'paygateway',
  'paylink',
  'crosschain',
  'social',
  'microblog',
  'perpdex',
  'marketdata',
]

const ADDRESS = '0x00000000000000000000000000000000000000aa'
const TOKEN = '0x00000000000000000000000000000000000000bb'
const HASH = `0x${'1'.repeat(64)}`

describe('the built-in trigger catalog', () => {
  it("has every trigger type of the specification's table", () => {
    expect(SPEC_TRIGGER_TYPES.filter((type) => !registry.trigger(type))).toEqual([])
  })

  it('names platform triggers <platform>-<event>, with the platform word as platform', () => {
    for (const t of registry.triggers()) {
      const word = PLATFORM_WORDS.find((w) => t.type === w || t.type.startsWith(`${w}-`))
      if (word) expect(`${t.type}: ${t.platform}`).toBe(`${t.type}: ${word}`)
      expect(t.platform).toBeTruthy()
      expect(t.description.length).toBeGreaterThan(10)
      expect(t.tags?.length).toBeGreaterThan(0)
    }
  })

  it('gives each trigger an event schema with a typed body, and a wait schema unless it is time-based or polled', () => {
    for (const t of registry.triggers().filter((x) => x.type !== 'manual')) {
      const body = (t.result as { properties?: Record<string, { type?: string }> }).properties?.body
      expect(`${t.type}: ${body?.type}`).toBe(`${t.type}: object`)
      // A run cannot wait for a clock tick of another workflow's schedule (time waits use `delay`),
      // nor for another workflow's poll: polled items start runs only.
      const expected = t.schedule || t.poll ? undefined : 'object'
      expect(`${t.type}: ${t.waitPayload?.type}`).toBe(`${t.type}: ${expected}`)
    }
    expect(
      registry
        .triggers()
        .filter((t) => t.schedule)
        .map((t) => t.type)
        .sort(),
    ).toEqual(['cronjob', 'schedule'])
  })

  it('requires the connectors its platform needs', () => {
    expect(trigger('chatapp-mentions').connector).toEqual({ type: 'chatapp' })
    expect(trigger('payprovider-payment-receive').connector).toEqual({ type: 'payprovider' })
    expect(trigger('crosschain').connector).toBeNull()
    expect(registry.connector('chatapp')?.data.properties.botToken).toMatchObject({ writeOnly: true })
  })
})

describe('matching built-in triggers', () => {
  it('erc20-receive: the recipient (any letter case), the token and a minimum amount', () => {
    const t = trigger('erc20-receive')
    const body = {
      chainId: 1,
      tokenAddress: TOKEN,
      from: TOKEN,
      to: ADDRESS.toUpperCase().replace('0X', '0x'),
      amount: '1000',
      transactionHash: HASH,
      blockNumber: 1,
      logIndex: 0,
    }
    expect(matchTrigger(t, { chainId: 1, address: ADDRESS }, body)).toBe(true)
    expect(matchTrigger(t, { chainId: 1, address: ADDRESS, minAmount: '1001' }, body)).toBe(false)
    expect(matchTrigger(t, { chainId: 8453, address: ADDRESS }, body)).toBe(false)
    expect(matchTrigger(trigger('erc20-send'), { chainId: 1, address: ADDRESS }, body)).toBe(false)
    expect(matchWait(t, { transactionHash: HASH }, body)).toBe(true)
  })

  it('evm-log: contract and positional topics, null for any', () => {
    const t = trigger('evm-log')
    const body = {
      chainId: 1,
      address: ADDRESS,
      topics: [HASH, `0x${'2'.repeat(64)}`],
      data: '0x',
      blockNumber: 7,
      transactionHash: HASH,
      logIndex: 3,
    }
    expect(matchTrigger(t, { chainId: 1, address: ADDRESS, topics: [HASH, null] }, body)).toBe(true)
    expect(matchTrigger(t, { chainId: 1, address: ADDRESS, topics: [null, HASH] }, body)).toBe(false)
  })

  it('token-price-cexes: thresholds and exchanges', () => {
    const t = trigger('token-price-cexes')
    const body = {
      symbol: 'BTC',
      quote: 'USDT',
      exchange: 'ExA',
      price: 70000,
      change24hPercent: -6,
      at: '2025-01-01T00:00:00.000Z',
    }
    expect(matchTrigger(t, { symbol: 'btc', above: 65000 }, body)).toBe(true)
    expect(matchTrigger(t, { symbol: 'BTC', below: 65000 }, body)).toBe(false)
    expect(matchTrigger(t, { symbol: 'BTC', changePercent: 5, exchanges: ['exa'] }, body)).toBe(true)
  })

  it('email-new-email-matching-criteria: every criterion, ignoring case', () => {
    const t = trigger('email-new-email-matching-criteria')
    const body = {
      messageId: 'm',
      from: 'Billing@acme.test',
      to: ['me@x.test'],
      cc: [],
      subject: 'Invoice 42',
      text: 'Please pay',
      receivedAt: '2025-01-01T00:00:00.000Z',
      attachments: [{ filename: 'a.pdf', contentType: 'application/pdf', size: 1 }],
    }
    expect(matchTrigger(t, { from: 'billing@', subjectContains: 'invoice', hasAttachment: true }, body)).toBe(true)
    expect(matchTrigger(t, { from: 'billing@', bodyContains: 'refund' }, body)).toBe(false)
  })

  it('chatapp-new-keyword-mention: keywords in given channels', () => {
    const t = trigger('chatapp-new-keyword-mention')
    const body = { teamId: 'T1', channelId: 'C1', userId: 'U1', text: 'The DEPLOY failed', ts: '1.0' }
    expect(matchTrigger(t, { keywords: ['deploy'] }, body)).toBe(true)
    expect(matchTrigger(t, { keywords: ['deploy'], caseSensitive: true }, body)).toBe(false)
    expect(matchTrigger(t, { keywords: ['deploy'], channelIds: ['C2'] }, body)).toBe(false)
    expect(matchWait(t, { channelId: 'C1', userId: 'U1' }, body)).toBe(true)
  })

  it('payprovider-payment-receive: succeeded payments above a minimum, in a currency', () => {
    const t = trigger('payprovider-payment-receive')
    const event = (type: string, amount: number) => ({
      id: 'evt_1',
      type,
      created: 1,
      data: { object: { id: 'pi_1', amount, currency: 'eur' } },
    })
    expect(matchTrigger(t, { minAmount: 500, currency: 'EUR' }, event('payment_intent.succeeded', 1000))).toBe(true)
    expect(matchTrigger(t, {}, event('charge.succeeded', 1))).toBe(true)
    expect(matchTrigger(t, {}, event('payment_intent.created', 1000))).toBe(false)
    expect(matchTrigger(t, { minAmount: 5000 }, event('charge.succeeded', 1000))).toBe(false)
    expect(matchWait(t, { 'data.object.id': 'pi_1' }, event('charge.succeeded', 1))).toBe(true)
  })

  it('crosschain: by status; waits by order or client reference', () => {
    const t = trigger('crosschain')
    const body = {
      orderId: 'o1',
      clientReferenceId: 'wf_1',
      event: 'order.completed',
      status: 'completed',
      txHash: HASH,
      payment: {
        dstAmount: '100',
        dstChain: 8453,
        dstTokenAddress: TOKEN,
        dstTokenDecimals: 6,
        dstTokenSymbol: 'USDC',
        recipientAddress: ADDRESS,
      },
    }
    expect(matchTrigger(t, {}, body)).toBe(true)
    expect(matchTrigger(t, { statuses: ['failed'] }, body)).toBe(false)
    expect(matchWait(t, { orderId: 'o1' }, body)).toBe(true)
  })
})
