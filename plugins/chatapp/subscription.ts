/**
 * The event subscription a chatapp trigger registers with the chat platform when its workflow
 * goes live, and removes when it stops. Only for installations whose connector names the
 * platform's API (`apiBaseUrl`): the others receive the app's events at the installation-wide
 * events URL configured with the app, and subscribe to nothing.
 */
import type { SubscriptionContext, SubscriptionResult } from '../../core/plugin/sdk.ts'

interface ChatappData {
  teamId: string
  botToken: string
  apiBaseUrl?: string
}

type Ctx = SubscriptionContext<unknown, ChatappData>

const api = (ctx: Ctx) => ctx.connector?.apiBaseUrl?.replace(/\/+$/, '') ?? null

function headersOf(ctx: Ctx): Record<string, string> {
  return { authorization: `Bearer ${ctx.connector!.botToken}`, 'content-type': 'application/json' }
}

function messageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown }
    return String(parsed.message ?? parsed.error ?? body)
  } catch {
    return body.slice(0, 200)
  }
}

/** Registers the subscription; keeps its id and signing secret in the trigger's store. */
async function onEnable(ctx: Ctx): Promise<SubscriptionResult | undefined> {
  const base = api(ctx)
  if (!base) return undefined
  if (!ctx.webhookUrl)
    throw new Error('AUTOMATON_PUBLIC_URL is not set: the chat platform has no URL to post events to')
  const response = await ctx.http.send({
    method: 'POST',
    url: `${base}/event-subscriptions`,
    headers: headersOf(ctx),
    body: JSON.stringify({ teamId: ctx.connector!.teamId, url: ctx.webhookUrl }),
  })
  if (response.status < 200 || response.status >= 300)
    throw new Error(`the chat platform refused the event subscription: ${messageOf(response.body)}`)
  const created = JSON.parse(response.body) as { id: string; secret?: string; expiresAt?: string }
  await ctx.store.set('subscriptionId', String(created.id))
  if (created.secret) await ctx.store.set('secret', created.secret)
  const expiresAt = created.expiresAt ? Date.parse(created.expiresAt) : Number.NaN
  return Number.isFinite(expiresAt) ? { expiresAt } : undefined
}

/** Deletes the subscription (a platform that no longer knows it has nothing to delete). */
async function onDisable(ctx: Ctx): Promise<void> {
  const base = api(ctx)
  const id = await ctx.store.get('subscriptionId')
  if (!base || !id) return
  const response = await ctx.http.send({
    method: 'DELETE',
    url: `${base}/event-subscriptions/${encodeURIComponent(id)}`,
    headers: headersOf(ctx),
  })
  if (response.status === 404 || (response.status >= 200 && response.status < 300)) return
  throw new Error(`the chat platform did not delete the event subscription: ${messageOf(response.body)}`)
}

export const chatappSubscription = { onEnable, onDisable }
