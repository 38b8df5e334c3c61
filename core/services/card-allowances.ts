/** Allowing a card's use: for which agent types or workflows, at which merchant hosts, how many times, until when. */
import { badRequest, forbidden, notFound } from '../errors.ts'
import { type AllowanceRow, allowances, cards } from '../store/cards.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import type { Allowance, AllowanceBody, CardServiceDeps } from './cards.ts'

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/

const toAllowance = (r: AllowanceRow): Allowance => ({
  id: r.id,
  cardId: r.card_id,
  agentTypes: JSON.parse(r.agent_types) as string[],
  workflowIds: JSON.parse(r.workflow_ids) as string[],
  merchants: JSON.parse(r.merchants) as string[],
  maxUses: Number(r.max_uses),
  uses: Number(r.uses),
  expiresAt: iso(Number(r.expires_at)),
  createdBy: r.created_by,
  createdAt: iso(Number(r.created_at)),
  revokedAt: r.revoked_at === null ? null : iso(Number(r.revoked_at)),
})

/** A person allows the card's use; an API key (or a worker session) cannot. */
export async function allowCard(
  deps: CardServiceDeps,
  caller: Principal,
  cardId: string,
  body: AllowanceBody,
): Promise<Allowance> {
  if (caller.kind !== 'session' || !caller.userId)
    throw forbidden("only a person signed in can allow a card's use: API keys cannot")
  const row = await cards.byId(deps.store, caller.organizationId, cardId)
  if (!row) throw notFound('card')
  const merchants = body.merchants.map((m) => m.trim().toLowerCase())
  const expires = Date.parse(body.expiresAt)
  const problems = allowanceProblems(body, merchants, expires, deps.clock.now())
  if (problems.length > 0) throw badRequest('the allowance is invalid', problems)
  const allowance: AllowanceRow = {
    id: deps.ids.next('alw'),
    card_id: cardId,
    organization_id: caller.organizationId,
    agent_types: JSON.stringify(body.agentTypes ?? []),
    workflow_ids: JSON.stringify(body.workflowIds ?? []),
    merchants: JSON.stringify(merchants),
    max_uses: body.maxUses,
    uses: 0,
    expires_at: expires,
    created_by: caller.userId,
    created_at: deps.clock.now(),
    revoked_at: null,
  }
  await deps.store.write((tx) => allowances.insert(tx, allowance))
  return toAllowance(allowance)
}

/** What is wrong with an allowance: merchants that are not hosts, nobody it is for, an expiry in the past. */
function allowanceProblems(body: AllowanceBody, merchants: string[], expires: number, now: number) {
  return [
    ...merchants.flatMap((m, i) =>
      HOST.test(m) ? [] : [{ path: `/merchants/${i}`, message: 'a host name such as shop.example.com' }],
    ),
    ...((body.agentTypes?.length ?? 0) + (body.workflowIds?.length ?? 0) > 0
      ? []
      : [{ path: '/agentTypes', message: 'name agent types or workflows the card is for' }]),
    ...(Number.isFinite(expires) && expires > now
      ? []
      : [{ path: '/expiresAt', message: 'a date-time in the future' }]),
  ]
}

/** The allowances of a card of the caller's organization. */
export async function allowancesOf(deps: CardServiceDeps, caller: Principal, cardId: string): Promise<Allowance[]> {
  if (!(await cards.byId(deps.store, caller.organizationId, cardId))) throw notFound('card')
  return (await allowances.ofCard(deps.store, cardId)).map(toAllowance)
}
