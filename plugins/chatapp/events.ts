/**
 * Chat platform payloads → chatapp-* trigger events. Two kinds of payload arrive:
 * - an event callback `{ type: 'event_callback', team_id, event_id, event: { type, … } }`;
 * - an interaction (form field `payload` = JSON `{ type: 'block_actions' | 'view_submission', team, user, … }`).
 * A message in a channel is a `chatapp-new-message-in-channels` event and a
 * `chatapp-new-keyword-mention` event (each trigger filters by its own configuration), plus a
 * `chatapp-new-user-mention` event when it mentions users; a direct message is a
 * `chatapp-new-direct-message` event. Payloads this app does not route (edits, deletions,
 * other event types) become no events.
 */
import type { WebhookEvent } from '../../core/plugin/sdk.ts'

type Json = Record<string, any>

/** Message subtypes that are new messages; the others (edits, deletions, joins) are not routed. */
const NEW_MESSAGE_SUBTYPES = new Set([undefined, 'bot_message', 'thread_broadcast', 'file_share', 'me_message'])
const MENTION = /<@([A-Z0-9]+)(?:\|[^>]*)?>/g

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined)
const compact = <T extends Json>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T

function chatMessage(teamId: string, e: Json): Json | null {
  const userId = str(e.user) ?? str(e.bot_id)
  if (!str(e.channel) || !userId || typeof e.ts !== 'string') return null
  return compact({
    teamId,
    channelId: e.channel,
    channelType: ['channel', 'group', 'im'].includes(e.channel_type) ? e.channel_type : undefined,
    userId,
    text: typeof e.text === 'string' ? e.text : '',
    ts: e.ts,
    threadTs: str(e.thread_ts),
    botId: str(e.bot_id),
  })
}

function messageEvents(teamId: string, e: Json): Array<[string, Json]> {
  if (!NEW_MESSAGE_SUBTYPES.has(e.subtype)) return []
  const message = chatMessage(teamId, e)
  if (!message) return []
  if (e.channel_type === 'im') return [['chatapp-new-direct-message', message]]
  const out: Array<[string, Json]> = [
    ['chatapp-new-message-in-channels', message],
    ['chatapp-new-keyword-mention', message],
  ]
  const mentioned = [...new Set([...message.text.matchAll(MENTION)].map((m) => m[1]))]
  if (mentioned.length > 0) out.push(['chatapp-new-user-mention', { ...message, mentionedUserIds: mentioned }])
  return out
}

/** The trigger events of one event callback's inner event. */
function callbackEvents(teamId: string, e: Json): Array<[string, Json]> {
  switch (e.type) {
    case 'app_mention': {
      const message = chatMessage(teamId, e)
      return message ? [['chatapp-mentions', message]] : []
    }
    case 'message':
      return messageEvents(teamId, e)
    case 'reaction_added':
      if (!str(e.user) || !str(e.reaction) || !str(e.item?.channel) || !str(e.item?.ts)) return []
      return [
        [
          'chatapp-new-reaction-added',
          compact({
            teamId,
            channelId: e.item.channel,
            userId: e.user,
            reaction: e.reaction,
            itemTs: e.item.ts,
            itemUserId: str(e.item_user),
            ts: str(e.event_ts) ?? e.item.ts,
          }),
        ],
      ]
    case 'channel_created':
      if (!str(e.channel?.id) || !str(e.channel?.creator)) return []
      return [
        [
          'chatapp-new-channel-created',
          {
            teamId,
            channelId: e.channel.id,
            name: str(e.channel.name) ?? '',
            creatorId: e.channel.creator,
            createdAt: new Date((Number(e.channel.created) || 0) * 1000).toISOString(),
          },
        ],
      ]
    case 'team_join':
      if (!str(e.user?.id)) return []
      return [
        [
          'chatapp-new-user-added',
          compact({
            teamId,
            userId: e.user.id,
            name: str(e.user.name) ?? e.user.id,
            realName: str(e.user.real_name),
            email: str(e.user.profile?.email),
            isBot: e.user.is_bot === true,
          }),
        ],
      ]
    default:
      return []
  }
}

/** An event callback's trigger events, routed to the organizations of its team. */
export function eventsOfCallback(body: Json): WebhookEvent[] {
  const teamId = str(body.team_id)
  const eventId = str(body.event_id)
  if (!teamId || !eventId || !body.event || typeof body.event !== 'object') return []
  const route = { connectorType: 'chatapp', data: { teamId } }
  // The app left the team (or its token was revoked): the team's workflows pause (invalid_chat).
  if (body.event.type === 'app_uninstalled' || body.event.type === 'tokens_revoked') {
    return [
      {
        triggerType: 'chatapp-app-revoked',
        eventId,
        body: { teamId, type: body.event.type },
        route,
        connectorRevoked: true,
      },
    ]
  }
  return callbackEvents(teamId, body.event).map(([triggerType, eventBody]) => ({
    triggerType,
    eventId,
    body: eventBody,
    route,
  }))
}

/** An interaction's trigger events: one per action of a block_actions, one for a view_submission. */
export function eventsOfInteraction(payload: Json): WebhookEvent[] {
  const teamId = str(payload.team?.id)
  const userId = str(payload.user?.id)
  if (!teamId || !userId) return []
  const route = { connectorType: 'chatapp', data: { teamId } }
  const common = compact({
    teamId,
    type: String(payload.type),
    userId,
    channelId: str(payload.channel?.id),
    messageTs: str(payload.message?.ts),
    responseUrl: str(payload.response_url),
    triggerId: str(payload.trigger_id),
  })
  if (payload.type === 'view_submission' && str(payload.view?.callback_id)) {
    const eventId = `${payload.view.id ?? payload.trigger_id}:submission`
    return [
      {
        triggerType: 'chatapp-new-interaction-event',
        eventId,
        body: { ...common, actionId: payload.view.callback_id, value: payload.view.state?.values ?? null },
        route,
      },
    ]
  }
  if (payload.type !== 'block_actions' || !Array.isArray(payload.actions)) return []
  return payload.actions
    .filter((a: Json) => str(a?.action_id))
    .map((a: Json) => ({
      triggerType: 'chatapp-new-interaction-event',
      eventId: `${payload.trigger_id ?? payload.container?.message_ts ?? 'interaction'}:${a.action_id}:${a.action_ts ?? ''}`,
      body: { ...common, actionId: a.action_id, value: a.value ?? a.selected_option?.value ?? null },
      route,
    }))
}
