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
 *
 * This file holds the contract and the cards themselves (store, list, delete); allowances and
 * disclosures live beside it.
 */
import { badRequest, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { type CardRow, cards } from '../store/cards.ts'
import { iso } from '../time.ts'
import { actorOf, type Principal } from './auth.ts'
import { allowancesOf, allowCard } from './card-allowances.ts'
import { discloseCard, redeemHandle, redemptionsOf } from './card-disclosures.ts'
import { guarded, type OperationTable } from './operations.ts'

export { CardRedemptionError } from './card-disclosures.ts'

export interface CardDetails {
  number: string
  expMonth: number
  expYear: number
  cvc: string
  holderName: string
}

export interface CardServiceDeps {
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
}

/** A card as answered: only what may be shown, never the number or the CVC. */
export interface Card {
  id: string
  name: string
  brand: string
  last4: string
  expMonth: number
  expYear: number
  createdAt: string
}

/** What a new card is made of; the details are sealed, only `last4`, the brand and the expiry are kept in clear. */
export interface CreateCardBody {
  name: string
  number: string
  expMonth: number
  expYear: number
  cvc: string
  holderName: string
}

/** For whom (agent types or workflows), where (merchant hosts), how many times and until when a card may be used. */
export interface AllowanceBody {
  agentTypes?: string[]
  workflowIds?: string[]
  merchants: string[]
  maxUses: number
  expiresAt: string
}

export interface Allowance {
  id: string
  cardId: string
  agentTypes: string[]
  workflowIds: string[]
  merchants: string[]
  maxUses: number
  uses: number
  expiresAt: string
  createdBy: string
  createdAt: string
  revokedAt: string | null
}

/** A one-time handle for a run, redeemed as `{{$card.<handle>.<field>}}` in an outbound request. */
export interface Disclosure {
  cardId: string
  handle: string
  expiresAt: string
}

/** A disclosure as the audit reads it: who asked for it, for which run, and where it was redeemed. */
export interface Redemption {
  id: string
  runId: string | null
  requestedBy: string
  createdAt: string
  expiresAt: string
  redeemedAt: string | null
  redeemedRunId: string | null
  merchant: string | null
}

/** The organization's agent cards, their allowances, and disclosures to runs. */
export interface CardService {
  create(caller: Principal, body: CreateCardBody): Promise<Card>
  list(caller: Principal): Promise<Card[]>
  get(caller: Principal, id: string): Promise<Card>
  /** Deletes the card's details; only what may be shown stays, for the audit. */
  remove(caller: Principal, id: string): Promise<{ id: string; deleted: true }>
  /** A person allows the card's use; an API key (or a worker session) cannot. */
  allow(caller: Principal, cardId: string, body: AllowanceBody): Promise<Allowance>
  allowances(caller: Principal, cardId: string): Promise<Allowance[]>
  /**
   * `POST /v1/agent-cards/{cardId}/disclosure`: a one-time handle, for the caller's run. Every
   * refusal is the same 403 (also a missing permission), never a 404.
   */
  disclose(caller: Principal, cardId: string, runIdHeader: string | null): Promise<Disclosure>
  /**
   * Redeems a handle for one outbound request of a run: once, before it expires, at one of the
   * allowance's merchants. The details, for the request only; the redemption is recorded.
   */
  redeem(organizationId: string, runId: string, handle: string, hosts: readonly string[]): Promise<CardDetails>
  /** The redemptions of a card, for the audit. */
  redemptions(caller: Principal, cardId: string): Promise<Redemption[]>
}

const OPERATIONS: OperationTable<CardService> = {
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

const toCard = (r: CardRow): Card => ({
  id: r.id,
  name: r.name,
  brand: r.brand,
  last4: r.last4,
  expMonth: Number(r.exp_month),
  expYear: Number(r.exp_year),
  createdAt: iso(Number(r.created_at)),
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

export function createCardService(deps: CardServiceDeps): CardService {
  const { store, clock } = deps
  const card = (organizationId: string, id: string) => cards.byId(store, organizationId, id)

  return guarded<CardService>('cards', OPERATIONS, {
    create: async (caller, body) => createCard(deps, caller, body),

    async list(caller) {
      return (await cards.list(store, caller.organizationId)).map(toCard)
    },

    async get(caller, id) {
      const row = await card(caller.organizationId, id)
      if (!row) throw notFound('card')
      return toCard(row)
    },

    async remove(caller, id) {
      const row = await card(caller.organizationId, id)
      if (!row) throw notFound('card')
      // The details go with it: only what may be shown stays, for the audit.
      await store.write((tx) => cards.remove(tx, id, clock.now()))
      deps.onChange?.(caller.organizationId)
      return { id, deleted: true as const }
    },

    allow: async (caller, cardId, body) => allowCard(deps, caller, cardId, body),
    allowances: async (caller, cardId) => allowancesOf(deps, caller, cardId),
    disclose: async (caller, cardId, runIdHeader) => discloseCard(deps, caller, cardId, runIdHeader),
    redeem: async (organizationId, runId, handle, hosts) => redeemHandle(deps, organizationId, runId, handle, hosts),
    redemptions: async (caller, cardId) => redemptionsOf(deps, caller, cardId),
  })
}

/** Stores a card: its details sealed, what may be shown in clear. */
async function createCard(deps: CardServiceDeps, caller: Principal, body: CreateCardBody): Promise<Card> {
  const { clock } = deps
  const digits = checkedCardNumber(body, clock.now())
  const details: CardDetails = {
    number: digits,
    expMonth: body.expMonth,
    expYear: body.expYear,
    cvc: body.cvc,
    holderName: body.holderName,
  }
  const row: CardRow = {
    id: deps.ids.next('card'),
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
  await deps.store.write((tx) => cards.insert(tx, row))
  deps.onChange?.(caller.organizationId)
  return toCard(row)
}
