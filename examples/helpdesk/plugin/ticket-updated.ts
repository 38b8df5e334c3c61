/**
 * "Ticket updated": a subscribed trigger. The help desk posts updates only to URLs registered with
 * it, so `onEnable` registers the plugin's webhook URL and keeps the id and signing secret the help
 * desk answers in the trigger instance's sealed store; `onDisable` removes the registration.
 */
import type { Sdk } from 'automaton/sdk'
import { answerOf, helpdeskApi } from './api.ts'
import type { HelpdeskConnector } from './index.ts'

export function ticketUpdated({ defineTrigger, Type, TriggerEvent }: Sdk, connector: HelpdeskConnector) {
  return defineTrigger({
    type: 'helpdesk-ticket-updated',
    name: 'Ticket updated',
    description: 'A ticket changed at the help desk: its status, queue or assignee.',
    tags: ['support'],
    platform: 'helpdesk',
    connector,
    webhook: 'events',
    payload: Type.Object({ queue: Type.Optional(Type.String({ description: 'only tickets of this queue' })) }),
    result: TriggerEvent(
      Type.Object({
        id: Type.String(),
        status: Type.String(),
        queue: Type.String(),
        changes: Type.Array(Type.String()),
      }),
    ),
    waitPayload: Type.Object({ id: Type.Optional(Type.String()) }),
    matches: (config, event) => !config.queue || config.queue === event.body.queue,
    async onEnable(ctx) {
      if (!ctx.webhookUrl) throw new Error('the help desk needs a public URL to post to: set AUTOMATON_PUBLIC_URL')
      const registration = answerOf<{ id: string; secret: string }>(
        await helpdeskApi(ctx, ctx.connector).post('/api/webhooks', {
          url: ctx.webhookUrl,
          events: ['ticket.updated'],
        }),
        'registering the webhook',
      )
      await ctx.store.set('id', registration.id)
      // Read back by the events webhook's signature check (auth kind `subscription`, key `secret`).
      await ctx.store.set('secret', registration.secret)
      ctx.log('webhook registered', { id: registration.id })
      return undefined
    },
    async onDisable(ctx) {
      const id = await ctx.store.get('id')
      if (!id) return
      const response = await helpdeskApi(ctx, ctx.connector).delete(`/api/webhooks/${encodeURIComponent(id)}`)
      // Gone already is as good as removed; anything else is retried by the host.
      if (response.status !== 404) answerOf(response, 'removing the webhook')
    },
  })
}
