/**
 * What the chatapp plugin asks the chat platform's Web API (when the connector names its
 * `apiBaseUrl`): the channels a trigger may watch (dynamic options of `channelIds`) and whether
 * the bot token is good for the connector's team (the connector check).
 */
import type { ConnectorTestContext, OptionsContext, OptionsPage } from '../../core/plugin/sdk.ts'

interface ChatappData {
  readonly teamId: string
  readonly botToken: string
  readonly apiBaseUrl?: string
}

const PAGE_SIZE = 200

/** Calls one Web API method with the bot token; the platform answers `{ ok, error? … }`. */
async function callApi(
  ctx: { http: OptionsContext['http'] },
  data: ChatappData,
  method: string,
  query: Record<string, string> = {},
) {
  const url = new URL(`${data.apiBaseUrl!.replace(/\/+$/, '')}/${method}`)
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
  const response = await ctx.http.send({
    method: 'GET',
    url: url.toString(),
    headers: { authorization: `Bearer ${data.botToken}` },
  })
  if (response.status !== 200) throw new Error(`the chat platform answered ${method} with HTTP ${response.status}`)
  let body: { ok?: boolean; error?: string } & Record<string, unknown>
  try {
    body = JSON.parse(response.body)
  } catch {
    throw new Error(`the chat platform answered ${method} with something other than JSON`)
  }
  if (body.ok !== true) throw new Error(`the chat platform refused ${method}: ${body.error ?? 'no reason given'}`)
  return body
}

/**
 * The team's channels, a page at a time (the platform's cursor), those whose name contains the
 * search (ignoring case). Without an API base URL there is nothing to ask: no options.
 */
export async function channelOptions(ctx: OptionsContext<ChatappData>): Promise<OptionsPage> {
  const data = ctx.connector
  if (!data?.apiBaseUrl) return { items: [] }
  const body = await callApi(ctx, data, 'conversations.list', {
    limit: String(PAGE_SIZE),
    ...(ctx.cursor ? { cursor: ctx.cursor } : {}),
  })
  const channels = (body.channels ?? []) as { id: string; name: string }[]
  const search = ctx.search?.trim().toLowerCase()
  const items = channels
    .filter((c) => !search || c.name.toLowerCase().includes(search))
    .map((c) => ({ label: `#${c.name}`, value: c.id }))
  const next = (body.response_metadata as { next_cursor?: string } | undefined)?.next_cursor
  return { items, nextCursor: next || null }
}

/** The connector check: the token is accepted, and it belongs to the connector's team. */
export async function checkInstallation(ctx: ConnectorTestContext<ChatappData>) {
  if (!ctx.data.apiBaseUrl) return { ok: true, message: 'no API base URL: the token is not checked' }
  const body = await callApi(ctx, ctx.data, 'auth.test')
  if (body.team_id !== ctx.data.teamId)
    return { ok: false, message: `the bot token belongs to team ${String(body.team_id)}, not ${ctx.data.teamId}` }
  return { ok: true, message: `connected to team ${ctx.data.teamId}` }
}
