/**
 * Agent cards: payment cards an organization lets agents pay with, without ever handing them
 * the details. The details are sealed; only `last4`, `brand` and the expiry are answered. A
 * person (a sign-in session, never an API key) allows a card's use: for which agent types or
 * workflows, at which merchant hosts, how many times, until when.
 *
 * A run that must pay asks for a **disclosure**: a random one-time handle (stored hashed), short
 * lived. Every refusal is the same 403, so a caller cannot learn whether a card exists. The
 * handle is redeemed only inside an outbound `http-request` node whose target host is one of the
 * allowance's merchants: `{{$card.<handle>.number}}` (and `expMonth`, `expYear`, `cvc`,
 * `holderName`) are filled in at send time, so the journal, streams and hooks keep the template;
 * each redemption is recorded. Wherever a stored card's number or CVC comes back (an echoing
 * merchant, a webhook payload), the organization's secret masks hide it (services/secret-masks.ts).
 */
import { badRequest, forbidden, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { type AllowanceRow, allowances, type CardRow, cards, disclosures } from '../store/cards.ts'
import { iso } from '../time.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded } from './operations.ts'

export interface CardDetails {
  number: string
  expMonth: number
  expYear: number
  cvc: string
  holderName: string
}

/** The one answer to every refused disclosure. */
const REFUSED = 'this card cannot be disclosed to this caller'
const refused = () => forbidden(REFUSED)

/** Thrown when a handle cannot be redeemed: the node fails, naming nothing about the card. */
export class CardRedemptionError extends Error {
  override name = 'CardRedemptionError'
}

export function luhnValid(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

export function brandOf(digits: string): string {
  if (/^4/.test(digits)) return 'visa'
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'mastercard'
  if (/^3[47]/.test(digits)) return 'amex'
  if (/^(6011|65|64[4-9])/.test(digits)) return 'discover'
  return 'unknown'
}

const toCard = (r: CardRow) => ({
  id: r.id,
  name: r.name,
  brand: r.brand,
  last4: r.last4,
  expMonth: Number(r.exp_month),
  expYear: Number(r.exp_year),
  createdAt: iso(Number(r.created_at)),
})
const toAllowance = (r: AllowanceRow) => ({
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

/** The card's digits, once its number, CVC and expiry check out at `now`; 400 naming each problem otherwise. */
function checkedCardNumber(
  body: { number: string; expMonth: number; expYear: number; cvc: string },
  now: number,
): string {
  const digits = body.number.replace(/[\s-]/g, '')
  const problems = [
    ...(/^\d{12,19}$/.test(digits) && luhnValid(digits)
      ? []
      : [{ path: '/number', message: 'not a card number (12 to 19 digits passing the Luhn check)' }]),
    ...(/^\d{3,4}$/.test(body.cvc) ? [] : [{ path: '/cvc', message: '3 or 4 digits' }]),
  ]
  const date = new Date(now)
  if (
    body.expYear < date.getUTCFullYear() ||
    (body.expYear === date.getUTCFullYear() && body.expMonth < date.getUTCMonth() + 1)
  ) {
    problems.push({ path: '/expYear', message: 'the card has expired' })
  }
  if (problems.length > 0) throw badRequest('the card is invalid', problems)
  return digits
}

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/

export function createCardService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  secretBox: SecretBox
  /** AUTOMATON_DISCLOSURE_TTL. */
  disclosureTtlMs: number
  /** The agent run a worker session belongs to, and its agent type. */
  agentRunOfKey: (db: SqlExecutor, keyId: string) => Promise<{ runId: string; agentType: string } | undefined>
  /** A run of the organization: its workflow, and its agent type when it is an agent run. */
  runOf: (
    db: SqlExecutor,
    organizationId: string,
    runId: string,
  ) => Promise<{ workflowId: string; agentType: string | null } | undefined>
  /** A card was stored or deleted: the organization's secret masks are made again. */
  onChange?: (organizationId: string) => void
}) {
  const { store, clock, ids } = deps

  const card = (organizationId: string, id: string) => cards.byId(store, organizationId, id)

  return guarded(
    'cards',
    {
      list: ['card:read'],
      get: ['card:read'],
      allowances: ['card:read'],
      redemptions: ['card:read'],
      create: ['card:write'],
      remove: ['card:write'],
      allow: ['card:write'],
      // card:disclose is checked inside, with the other refusals: every refusal is the same 403.
      disclose: [],
      // An http-request node of a run redeems a handle: no caller.
      redeem: null,
    },
    {
      async create(
        caller: Principal,
        body: { name: string; number: string; expMonth: number; expYear: number; cvc: string; holderName: string },
      ) {
        const digits = checkedCardNumber(body, clock.now())
        const details: CardDetails = {
          number: digits,
          expMonth: body.expMonth,
          expYear: body.expYear,
          cvc: body.cvc,
          holderName: body.holderName,
        }
        const row: CardRow = {
          id: ids.next('card'),
          organization_id: caller.organizationId,
          name: body.name,
          brand: brandOf(digits),
          last4: digits.slice(-4),
          exp_month: body.expMonth,
          exp_year: body.expYear,
          sealed_details: await deps.secretBox.seal(JSON.stringify(details)),
          created_by: actorOf(caller),
          created_at: clock.now(),
          deleted_at: null,
        }
        await store.write((tx) => cards.insert(tx, row))
        deps.onChange?.(caller.organizationId)
        return toCard(row)
      },

      async list(caller: Principal) {
        return (await cards.list(store, caller.organizationId)).map(toCard)
      },

      async get(caller: Principal, id: string) {
        const row = await card(caller.organizationId, id)
        if (!row) throw notFound('card')
        return toCard(row)
      },

      async remove(caller: Principal, id: string) {
        const row = await card(caller.organizationId, id)
        if (!row) throw notFound('card')
        // The details go with it: only what may be shown stays, for the audit.
        await store.write((tx) => cards.remove(tx, id, clock.now()))
        deps.onChange?.(caller.organizationId)
        return { id, deleted: true as const }
      },

      /** A person allows the card's use; an API key (or a worker session) cannot. */
      async allow(
        caller: Principal,
        cardId: string,
        body: {
          agentTypes?: string[]
          workflowIds?: string[]
          merchants: string[]
          maxUses: number
          expiresAt: string
        },
      ) {
        if (caller.kind !== 'session' || !caller.userId)
          throw forbidden("only a person signed in can allow a card's use: API keys cannot")
        const row = await card(caller.organizationId, cardId)
        if (!row) throw notFound('card')
        const merchants = body.merchants.map((m) => m.trim().toLowerCase())
        const expires = Date.parse(body.expiresAt)
        const problems = [
          ...merchants.flatMap((m, i) =>
            HOST.test(m) ? [] : [{ path: `/merchants/${i}`, message: 'a host name such as shop.example.com' }],
          ),
          ...((body.agentTypes?.length ?? 0) + (body.workflowIds?.length ?? 0) > 0
            ? []
            : [{ path: '/agentTypes', message: 'name agent types or workflows the card is for' }]),
          ...(Number.isFinite(expires) && expires > clock.now()
            ? []
            : [{ path: '/expiresAt', message: 'a date-time in the future' }]),
        ]
        if (problems.length > 0) throw badRequest('the allowance is invalid', problems)
        const allowance: AllowanceRow = {
          id: ids.next('alw'),
          card_id: cardId,
          organization_id: caller.organizationId,
          agent_types: JSON.stringify(body.agentTypes ?? []),
          workflow_ids: JSON.stringify(body.workflowIds ?? []),
          merchants: JSON.stringify(merchants),
          max_uses: body.maxUses,
          uses: 0,
          expires_at: expires,
          created_by: caller.userId,
          created_at: clock.now(),
          revoked_at: null,
        }
        await store.write((tx) => allowances.insert(tx, allowance))
        return toAllowance(allowance)
      },

      async allowances(caller: Principal, cardId: string) {
        if (!(await card(caller.organizationId, cardId))) throw notFound('card')
        return (await allowances.ofCard(store, cardId)).map(toAllowance)
      },

      /**
       * `POST /v1/agent-cards/{cardId}/disclosure`: a one-time handle, for the caller's run. Every
       * refusal is the same 403 (also a missing permission), never a 404.
       */
      async disclose(caller: Principal, cardId: string, runIdHeader: string | null) {
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
      },

      /**
       * Redeems a handle for one outbound request of a run: once, before it expires, at one of the
       * allowance's merchants. The details, for the request only; the redemption is recorded.
       */
      async redeem(
        organizationId: string,
        runId: string,
        handle: string,
        hosts: readonly string[],
      ): Promise<CardDetails> {
        const host = hosts[0] ?? ''
        const hash = await sha256Hex(handle)
        const at = clock.now()
        const found = await store.write(async (tx) => {
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
      },

      /** The redemptions of a card, for the audit. */
      async redemptions(caller: Principal, cardId: string) {
        if (!(await card(caller.organizationId, cardId))) throw notFound('card')
        return (await disclosures.ofCard(store, cardId)).map((r) => ({
          id: r.id,
          runId: r.run_id,
          requestedBy: r.requested_by,
          createdAt: iso(Number(r.created_at)),
          expiresAt: iso(Number(r.expires_at)),
          redeemedAt: r.redeemed_at === null ? null : iso(Number(r.redeemed_at)),
          redeemedRunId: r.redeemed_run_id,
          merchant: r.redeemed_merchant,
        }))
      },
    },
  )
}

export type CardService = ReturnType<typeof createCardService>
