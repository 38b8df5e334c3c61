/**
 * One of each resource an organization can own, made through the API (seeded in the store only
 * where making it needs a chain or a model), and the real ids that fill the path parameters of
 * the OpenAPI document's paths: for suites that must reach the handler behind an id.
 */
import { contracts } from '../../core/store/chat-messages.ts'
import { endpoints } from '../../core/store/x402-endpoints.ts'
import { addMember, type Person } from './people.ts'
import type { TestSystem } from './system.ts'
import { waitForRun } from './workflows.ts'

export interface Resources {
  /** The real value of each path parameter, by the path up to and including it (`/v1/runs/{runId}`). */
  byPrefix: Record<string, string>
  /** Values for one path that differ from those of its prefix. */
  byPath: Record<string, Record<string, string>>
  /** A member of the organization, signed in, for the operations only a person may call. */
  person: Person
}

const CARD = {
  name: 'Ops Visa',
  number: '4242 4242 4242 4242',
  expMonth: 12,
  expYear: 2031,
  cvc: '737',
  holderName: 'Ada Ops',
}
const WALLET = '0x1111111111111111111111111111111111111111'

const flow = (nodes: Record<string, unknown>) => ({ definition: { triggerNodeIds: ['root'], nodes } })
const FINISHING = flow({
  root: { type: 'manual', children: ['say'] },
  say: { type: 'log', payload: { message: 'said {{$trigger.body.n}}' } },
})
const WAITING = flow({
  root: { type: 'manual', children: ['hold'] },
  hold: { type: 'wait', payload: { timeoutMs: 3_600_000 }, children: ['got'] },
  got: { type: 'log', branch: 'resumed', payload: { message: 'resumed' } },
})
const SCHEDULED = flow({
  root: { type: 'cronjob', payload: { expression: '0 9 * * *' }, children: ['say'] },
  say: { type: 'log', payload: { message: 'tick' } },
})

/** Calls as the owner key and answers `data`, or throws naming the call. */
async function made(t: TestSystem, method: string, path: string, body?: unknown): Promise<any> {
  const r = await t.call(method, path, { body })
  if (r.status !== 200)
    throw new Error(`${method} ${path} while making resources: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`)
  return r.body.data
}

/** A live workflow with two versions (the second published over the first). */
async function liveTwice(t: TestSystem, body: Record<string, unknown>) {
  const w = await made(t, 'POST', '/v1/workflows', body)
  await made(t, 'POST', `/v1/workflows/${w.id}/publish`)
  await made(t, 'PUT', `/v1/workflows/${w.id}`, { ...body, description: 'second version' })
  return made(t, 'POST', `/v1/workflows/${w.id}/publish`)
}

/**
 * Live workflows (one finishing, one waiting, one scheduled), runs of them, and a hook endpoint
 * with a delivery of their events.
 */
async function workflowsAndRuns(t: TestSystem, hookUrl: string, suffix: string) {
  const hook = await made(t, 'POST', '/v1/execution-webhooks', { name: `hook ${suffix}`, url: `${hookUrl}/events` })
  const workflow = await liveTwice(t, FINISHING)
  await made(t, 'PUT', `/v1/workflows/${workflow.id}/visibility`, { visibility: 'public_execute' })
  const waiting = await liveTwice(t, WAITING)
  const scheduled = await liveTwice(t, SCHEDULED)
  const finished = await waitForRun(
    t,
    (await made(t, 'POST', `/v1/workflows/${workflow.id}/run`, { payload: { n: 1 } })).runId,
  )
  // Two waiting runs: resuming one and cancelling the other both end it.
  const [held, cancelled] = await Promise.all(
    [0, 1].map(async () => {
      const runId: string = (await made(t, 'POST', `/v1/workflows/${waiting.id}/run`, { payload: {} })).runId
      await waitForRun(t, runId, (run) => run.status === 'waiting')
      return runId
    }),
  )
  return {
    hookId: hook.endpoint.id as string,
    delivery: await firstDelivery(t, hook.endpoint.id),
    workflow,
    scheduledId: scheduled.id as string,
    finishedId: finished.id as string,
    held,
    cancelled,
  }
}

/**
 * Makes the resources in `t`'s organization. `suffix` keeps names unique when a suite makes a
 * second set. The system must allow hook deliveries to `hookUrl` (a local receiver) and have a
 * model that answers (a scripted one), for an agent run.
 */
export async function createResources(t: TestSystem, hookUrl: string, suffix: string): Promise<Resources> {
  const { hookId, delivery, workflow, scheduledId, finishedId, held, cancelled } = await workflowsAndRuns(
    t,
    hookUrl,
    suffix,
  )
  const account = await made(t, 'POST', '/v1/service-accounts', {
    name: `account ${suffix}`,
    permissions: ['workflow:read'],
  })
  const key = await made(t, 'POST', '/v1/api-keys', { name: `key ${suffix}`, scope: 'read' })
  const person = await addMember(t, `person-${suffix}@example.com`, 'owner')
  const member = await addMember(t, `member-${suffix}@example.com`, 'viewer')
  const invitation = await made(t, 'POST', '/v1/members', { email: `invited-${suffix}@example.com`, role: 'developer' })
  const connector = await made(t, 'POST', '/v1/connectors', {
    type: 'payprovider',
    name: `pay ${suffix}`,
    data: { signingSecret: `whsec_${suffix}_0123456789` },
  })
  const tag = await made(t, 'POST', '/v1/tags', { slug: `tag-${suffix}`, name: `Tag ${suffix}` })
  const template = await made(t, 'POST', '/v1/templates', { name: `Template ${suffix}`, ...FINISHING })
  const app = await made(t, 'POST', '/v1/apps', { name: `app ${suffix}`, files: { 'index.html': '<h1>app</h1>' } })
  const wallet = await made(t, 'POST', '/v1/wallets', { name: `wallet ${suffix}` })
  const card = await made(t, 'POST', '/v1/agent-cards', CARD)
  const event = await receivedEvent(t, suffix)
  const agentRun = await made(t, 'POST', '/v1/agent-runs', { agentType: 'researcher', prompt: `say ${suffix}` })
  const { contractId, endpointId } = await seedChainResources(t, suffix)

  const byPrefix: Record<string, string> = {
    '/v1/api-keys/{id}': key.id,
    '/v1/service-accounts/{id}': account.id,
    '/v1/members/{userId}': member.userId,
    '/v1/invitations/{id}': invitation.id,
    '/v1/workflows/{id}': workflow.id,
    '/v1/workflows/{id}/versions/{versionNumber}': '1',
    '/v1/runs/{runId}': finishedId,
    '/v1/runs/{runId}/nodes/{nodeId}': 'hold',
    '/v1/public/workflows/{id}': workflow.id,
    '/v1/webhooks/{workflowSecret}': workflow.triggerSecret,
    '/v1/x402/workflows/{workflowId}': workflow.id,
    '/v1/executions/{runId}': finishedId,
    '/v1/triggers/{type}': 'manual',
    '/v1/actions/{type}': 'log',
    '/v1/catalog/triggers/{type}': 'manual',
    '/v1/catalog/actions/{type}': 'log',
    '/v1/workflows/{id}/polls/{nodeId}': 'root',
    '/v1/workflows/{id}/nodes/{nodeId}': 'say',
    '/v1/connector-types/{type}': 'payprovider',
    '/v1/connectors/{id}': connector.id,
    '/v1/contracts/{id}': contractId,
    '/v1/execution-webhooks/deliveries/{id}': delivery,
    '/v1/execution-webhooks/{id}': hookId,
    '/v1/webhook-events/{eventId}': event,
    '/v1/organizations/{orgId}': t.orgId,
    '/v1/orgs/{orgId}': t.orgId,
    '/v1/templates/{id}': template.id,
    '/v1/templates/{id}/versions/{n}': '1',
    '/v1/tags/{id}': tag.id,
    '/v1/apps/{id}': app.id,
    '/v1/apps/{id}/versions/{n}': '1',
    '/v1/wallets/{id}': wallet.id,
    '/v1/x402-endpoints/{id}': endpointId,
    '/v1/agent-runs/{runId}': agentRun.runId,
    '/v1/agent-cards/{id}': card.id,
  }
  const byPath = {
    '/v1/workflows/{id}/schedule': { id: scheduledId },
    '/v1/runs/{runId}/nodes/{nodeId}/resume': { runId: held },
    '/v1/runs/{runId}/cancel': { runId: cancelled },
  }
  return { byPrefix, byPath, person }
}

/**
 * The path with each parameter given its real value, or null when one has none. `raw` puts a
 * segment (sent as written) in place of the parameter at that position instead.
 */
export function realPath(path: string, r: Resources, raw: Record<number, string> = {}): string | null {
  let missing = false
  let index = 0
  const filled = path.replace(/\{([^}]+)\}/g, (param, name: string, at: number) => {
    const instead = raw[index++]
    if (instead !== undefined) return instead
    const value = r.byPath[path]?.[name] ?? r.byPrefix[path.slice(0, at + param.length)]
    if (value === undefined) missing = true
    return encodeURIComponent(value ?? '')
  })
  return missing ? null : filled
}

async function firstDelivery(t: TestSystem, endpointId: string): Promise<string> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const items = (await made(t, 'GET', `/v1/execution-webhooks/deliveries?endpointId=${endpointId}`)).items
    if (items.length > 0) return items[0].id
    if (Date.now() > deadline) throw new Error('no hook delivery was recorded')
    await Bun.sleep(20)
  }
}

/** An event received by the organization's event-source webhook (stored, matching no workflow). */
async function receivedEvent(t: TestSystem, suffix: string): Promise<string> {
  const secret = (await made(t, 'GET', `/v1/organizations/${t.orgId}/webhook-secret`)).webhookSecret
  const transfer = {
    chainId: 1,
    tokenAddress: WALLET,
    tokenSymbol: 'USDC',
    from: WALLET,
    to: WALLET,
    amount: '1',
    transactionHash: `0x${'a'.repeat(64)}`,
    blockNumber: 1,
    logIndex: 0,
  }
  const r = await t.call('POST', `/v1/orgs/${t.orgId}/integrations/eventsource?secret=${encodeURIComponent(secret)}`, {
    key: null,
    body: { id: `event-${suffix}`, type: 'erc20-receive', data: transfer },
  })
  if (r.status !== 200) throw new Error(`the event-source webhook: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.eventId
}

/** A contract and an imported x402 endpoint are made by a model and a payment on a chain: seeded instead. */
async function seedChainResources(t: TestSystem, suffix: string) {
  const now = Date.now()
  const contractId = `contract_${suffix}`
  await contracts.insert(t.system.store, {
    id: contractId,
    organization_id: t.orgId,
    name: `Token ${suffix}`,
    status: 'compiled',
    plan: null,
    source: 'contract T {}',
    abi: '[]',
    bytecode: '0x6000',
    compile_error: null,
    created_by: 'test',
    created_at: now,
    updated_at: now,
  })
  const endpointId = `x402_${suffix}`
  await endpoints.insert(t.system.store, {
    id: endpointId,
    organization_id: t.orgId,
    name: `Quote ${suffix}`,
    description: '',
    category: 'markets',
    base_url: `https://seller.example/${suffix}`,
    method: 'POST',
    mime_type: 'application/json',
    source: 'user_import',
    details: '{}',
    input_summary: '',
    output_summary: '',
    price: '1000',
    max_allowed_price: '5000',
    network: 'base',
    pay_to: WALLET,
    token_address: WALLET,
    token_symbol: 'USDC',
    token_decimals: 6,
    spent_by_token: '{}',
    total_calls: 0,
    success_count: 0,
    failure_count: 0,
    avg_response_ms: 0,
    last_called_at: null,
    last_error: null,
    last_error_at: null,
    created_at: now,
    updated_at: now,
  })
  return { contractId, endpointId }
}
