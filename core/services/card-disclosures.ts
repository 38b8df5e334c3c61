/**
 * Disclosing a card to a run: a random one-time handle (stored hashed), short lived, redeemed
 * once inside an outbound request at one of the allowance's merchants; every redemption is kept
 * for the audit. Every refused disclosure is the same 403, so a caller cannot learn whether a
 * card exists.
 */
import { forbidden, notFound } from '../errors.ts'
import { sha256Hex } from '../security/hash.ts'
import { allowances, cards, disclosures } from '../store/cards.ts'
import { iso } from '../time.ts'
import { actorOf, type Principal } from './auth.ts'
import type { CardDetails, CardServiceDeps, Disclosure, Redemption } from './cards.ts'

/** The one answer to every refused disclosure. */
const REFUSED = 'this card cannot be disclosed to this caller'
const refused = () => forbidden(REFUSED)

/** Thrown when a handle cannot be redeemed: the node fails, naming nothing about the card. */
export class CardRedemptionError extends Error {
  override name = 'CardRedemptionError'
}

/**
 * `POST /v1/agent-cards/{cardId}/disclosure`: a one-time handle, for the caller's run. Every
 * refusal is the same 403 (also a missing permission), never a 404.
 */
export async function discloseCard(
  deps: CardServiceDeps,
  caller: Principal,
  cardId: string,
  runIdHeader: string | null,
): Promise<Disclosure> {
  const { store, clock, ids } = deps
  if (!caller.permissions.has('card:disclose')) throw refused()
  // The run the handle is for: a worker session's own run, or the run the caller names.
  const own = caller.keyId ? await deps.agentRunOfKey(store, caller.keyId) : undefined
  if (own && runIdHeader && runIdHeader !== own.runId) throw refused()
  const runId = own?.runId ?? runIdHeader
  if (!runId) throw refused()
  const run = await deps.runOf(store, caller.organizationId, runId)
  if (!run) throw refused()
  // Hex, so that the handle reads as one path segment in {{$card.<handle>.<field>}}.
  const handle = `cdh_${[...crypto.getRandomValues(new Uint8Array(24))].map((b) => b.toString(16).padStart(2, '0')).join('')}`
  const at = clock.now()
  const minted = await store.write(async (tx) => {
    if (!(await cards.byId(tx, caller.organizationId, cardId))) return null
    const live = await allowances.usable(tx, caller.organizationId, cardId, at)
    const allowance = live.find(
      (a) =>
        (run.agentType !== null && (JSON.parse(a.agent_types) as string[]).includes(run.agentType)) ||
        (JSON.parse(a.workflow_ids) as string[]).includes(run.workflowId),
    )
    if (!allowance) return null
    // One use of the allowance per handle, taken only while uses remain.
    if ((await allowances.takeUse(tx, allowance.id)) !== 1) return null
    await disclosures.insert(tx, {
      id: ids.next('dsc'),
      card_id: cardId,
      organization_id: caller.organizationId,
      allowance_id: allowance.id,
      handle_hash: await sha256Hex(handle),
      run_id: runId,
      requested_by: actorOf(caller),
      expires_at: at + deps.disclosureTtlMs,
      created_at: at,
    })
    return { cardId, handle, expiresAt: iso(at + deps.disclosureTtlMs) }
  })
  if (!minted) throw refused()
  return minted
}

/**
 * Redeems a handle for one outbound request of a run: once, before it expires, at one of the
 * allowance's merchants. The details, for the request only; the redemption is recorded.
 */
export async function redeemHandle(
  deps: CardServiceDeps,
  organizationId: string,
  runId: string,
  handle: string,
  hosts: readonly string[],
): Promise<CardDetails> {
  const host = hosts[0] ?? ''
  const hash = await sha256Hex(handle)
  const at = deps.clock.now()
  const found = await deps.store.write(async (tx) => {
    const d = await disclosures.byHandle(tx, organizationId, hash)
    if (!d) return 'unknown'
    if (d.redeemed_at !== null) return 'used'
    if (Number(d.expires_at) <= at) return 'expired'
    if (d.run_id && d.run_id !== runId) return 'another run'
    const merchants = await allowances.merchants(tx, d.allowance_id)
    if (!hosts.some((h) => merchants.includes(h.toLowerCase()))) return 'merchant'
    const sealed = await cards.sealedDetails(tx, d.card_id)
    if (sealed === undefined) return 'unknown'
    if ((await disclosures.redeem(tx, d.id, { at, runId, merchant: host.toLowerCase() })) !== 1) return 'used'
    return sealed
  })
  const reasons: Record<string, string> = {
    unknown: 'the card handle is not known',
    used: 'the card handle was used already (a handle works once)',
    expired: 'the card handle has expired',
    'another run': 'the card handle belongs to another run',
    merchant: `the card is not allowed at ${host}`,
  }
  if (reasons[found]) throw new CardRedemptionError(reasons[found])
  return JSON.parse(await deps.secretBox.open(found)) as CardDetails
}

/** The redemptions of a card, for the audit. */
export async function redemptionsOf(deps: CardServiceDeps, caller: Principal, cardId: string): Promise<Redemption[]> {
  if (!(await cards.byId(deps.store, caller.organizationId, cardId))) throw notFound('card')
  return (await disclosures.ofCard(deps.store, cardId)).map((r) => ({
    id: r.id,
    runId: r.run_id,
    requestedBy: r.requested_by,
    createdAt: iso(Number(r.created_at)),
    expiresAt: iso(Number(r.expires_at)),
    redeemedAt: r.redeemed_at === null ? null : iso(Number(r.redeemed_at)),
    redeemedRunId: r.redeemed_run_id,
    merchant: r.redeemed_merchant,
  }))
}
