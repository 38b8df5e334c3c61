/**
 * Importing a paid API: `POST /v1/x402-endpoints/import` probes a resource (it must answer 402
 * with an offer this installation can pay), pays it once from one of the organization's wallets,
 * and records the endpoint with metadata taken from the 402 and the paid answer (written by the AI
 * model when one is configured); `maxAllowedPrice` is five times the price.
 */
import { badRequest, conflict } from '../errors.ts'
import type { OutboundResponse } from '../ports/http-client.ts'
import type { Store } from '../ports/store.ts'
import { type WalletRow, wallets } from '../store/wallets.ts'
import { endpoints } from '../store/x402-endpoints.ts'
import type { Principal } from './auth.ts'
import { type Buyer, httpUrl, parseBody, toEndpoint, type X402EndpointsDeps } from './x402-endpoint-context.ts'
import { endpointRow, type ImportInput } from './x402-endpoint-row.ts'

export type { ImportInput } from './x402-endpoint-row.ts'

/** The wallet that pays an import: the one named, or the organization's default. */

async function walletFor(store: Store, caller: Principal, address?: string): Promise<WalletRow> {
  const wallet = address
    ? await wallets.byAddress(store, caller.organizationId, address)
    : (await wallets.list(store, caller.organizationId, 100, 0)).find((w) => w.is_default === 1)
  if (!wallet)
    throw badRequest(
      address
        ? 'no wallet of this organization has that address'
        : 'the organization has no default wallet: create one first',
      [{ path: '/walletAddress', message: 'unknown wallet' }],
    )
  return wallet
}

/**
 * Probes the resource with each method in turn until one answers 402 (an Automaton seller
 * answers GET with 404 and POST with 402); the method that did, and its answer.
 */
async function probe(send: Buyer['send'], input: ImportInput, methods: readonly string[]) {
  const answered: string[] = []
  for (const method of methods) {
    const response = await send(method, input.resourceUrl, input.body, {}).catch((error) => {
      throw badRequest(`the resource could not be reached: ${error instanceof Error ? error.message : String(error)}`, [
        { path: '/resourceUrl', message: 'unreachable' },
      ])
    })
    if (response.status === 402) return { method, response }
    answered.push(`${method} answered ${response.status}`)
  }
  throw badRequest(`the resource is not a paid x402 resource: ${answered.join(', ')}, not 402`, [
    { path: '/resourceUrl', message: answered.join(', ') },
  ])
}

/** The methods to probe with: the one asked for; else POST with a body; else GET, then POST. */
const methodsFor = (input: ImportInput) => (input.method ? [input.method] : input.body ? ['POST'] : ['GET', 'POST'])

/** Checks what a 402 offers (this installation can pay it, within the import price), then pays it once. */
async function buyOnce(
  deps: X402EndpointsDeps,
  { send, offerOf, paymentFor }: Buyer,
  input: ImportInput,
  probed: { method: string; response: OutboundResponse },
  wallet: WalletRow,
) {
  const { method } = probed
  const offer = offerOf(probed.response)
  if (typeof offer === 'string')
    throw badRequest(`the resource cannot be paid: ${offer}`, [{ path: '/resourceUrl', message: offer }])
  if (BigInt(offer.amount) > deps.maxImportPrice) {
    throw badRequest(
      `the resource asks ${offer.amount}, more than AUTOMATON_X402_MAX_IMPORT_PRICE (${deps.maxImportPrice})`,
      [{ path: '/resourceUrl', message: 'too expensive to import' }],
    )
  }
  // Pay once, and keep what it answers as the example.
  const [header, value] = await paymentFor(offer, wallet)
  const started = deps.clock.now()
  const paid = await send(method, input.resourceUrl, input.body, { [header]: value })
  if (paid.status < 200 || paid.status >= 300) {
    const reason = (parseBody(paid.body) as { error?: string })?.error ?? `status ${paid.status}`
    throw badRequest(`the resource refused the payment: ${reason}`, [{ path: '/resourceUrl', message: String(reason) }])
  }
  return { offer, paid, ms: deps.clock.now() - started }
}

/** The importing operation of the x402 endpoints. */
export function importOperations(deps: X402EndpointsDeps, buyer: Buyer) {
  const { store, clock } = deps
  const { settlementOf } = buyer

  return {
    async import(caller: Principal, input: ImportInput) {
      const url = httpUrl(input.resourceUrl, 'resourceUrl')
      const baseUrl = `${url.origin}${url.pathname}`
      const notImported = async (method: string) => {
        if (await endpoints.byTarget(store, caller.organizationId, baseUrl, method))
          throw conflict(`${method} ${baseUrl} is imported already; nothing was paid`)
      }
      const methods = methodsFor(input)
      if (methods.length === 1) await notImported(methods[0])
      const wallet = await walletFor(store, caller, input.walletAddress)
      const probed = await probe(buyer.send, input, methods)
      const { method } = probed
      await notImported(method)
      const { offer, paid, ms } = await buyOnce(deps, buyer, input, probed, wallet)
      const transaction = settlementOf(paid)
      const row = await endpointRow(
        deps,
        caller,
        input,
        { url, method },
        { offer, output: parseBody(paid.body), ms, at: clock.now() },
      )
      try {
        await store.write((tx) => endpoints.insert(tx, row))
      } catch (error) {
        if (await endpoints.byTarget(store, caller.organizationId, baseUrl, method))
          throw conflict(`${method} ${baseUrl} was imported meanwhile`)
        throw error
      }
      return {
        endpoint: toEndpoint(row),
        paymentDetails: {
          amountPaid: offer.amount,
          asset: offer.asset,
          network: offer.chain.network,
          payer: wallet.address,
          transaction,
        },
      }
    },
  }
}
