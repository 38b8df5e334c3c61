/**
 * Execution hooks as callers manage them: endpoints (created only for URLs the SSRF guard
 * accepts, with a `whsec_` signing secret shown once and sealed at rest) and the delivery log
 * (read, retry the same record, replay as a new one). Sending is the delivery worker's job
 * (runtime/hooks); this service only tells it, over the bus, that something changed.
 */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import {
  type CreateHookEndpointBody,
  type DeliveryFilter,
  HOOK_EVENT_TYPES,
  type HookDelivery,
  type HookEndpoint,
  isHookEventType,
  type RegenerateSecretBody,
  type UpdateHookEndpointBody,
} from '../domain/execution-hook.ts'
import { type AppError, badRequest, conflict, type ErrorDetail, notFound } from '../errors.ts'
import type { Bus } from '../ports/bus.ts'
import type { Clock } from '../ports/clock.ts'
import { type HttpClient, TargetRefusedError } from '../ports/http-client.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { hookUrlProblem, type HookUrlPolicy } from '../security/hook-url.ts'
import { generateSigningSecret } from '../security/webhook-signature.ts'
import { hookDeliveries, toDelivery } from '../store/hook-deliveries.ts'
import { type EndpointRow, hookEndpoints, toEndpoint } from '../store/hook-endpoints.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded } from './operations.ts'

/** Published when an endpoint changes, so caches everywhere drop it: `{ organizationId, endpointId }`. */
export const HOOK_ENDPOINT_CHANGED_SUBJECT = 'automaton.internal.hooks.endpoint-changed'
/** Published when deliveries became due outside the journal (retry, replay): delivery workers look now. */
export const HOOK_DELIVERIES_DUE_SUBJECT = 'automaton.internal.hooks.due'

export interface ExecutionHookDeps {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  http: HttpClient
  secretBox: SecretBox
  policy: HookUrlPolicy
}

export function createExecutionHookService(deps: ExecutionHookDeps) {
  const { store, clock } = deps

  /**
   * Writes a change to an endpoint and tells every process's cache. Also after a failed write:
   * the outbox reads endpoints inside journal transactions, which may have shared a batch with
   * this write and seen it before it was rolled back.
   */
  async function writeEndpoint(
    organizationId: string,
    endpointId: string,
    work: (tx: SqlExecutor) => Promise<unknown>,
  ): Promise<void> {
    try {
      await store.write(work)
    } finally {
      deps.bus.publish(HOOK_ENDPOINT_CHANGED_SUBJECT, { organizationId, endpointId })
    }
  }

  async function endpointRow(caller: Principal, id: string): Promise<EndpointRow> {
    const row = await hookEndpoints.byId(store, caller.organizationId, id)
    if (!row) throw notFound('execution webhook')
    return row
  }

  async function checkUrl(url: string): Promise<void> {
    const problem = hookUrlProblem(url, deps.policy)
    if (problem) throw badRequest(`url ${problem}`, [{ path: '/url', message: problem }])
    try {
      await deps.http.checkTarget(url)
    } catch (error) {
      throw refusal(error)
    }
  }

  async function setStatus(caller: Principal, id: string, status: 'enabled' | 'disabled'): Promise<HookEndpoint> {
    await endpointRow(caller, id)
    const reason = status === 'disabled' ? `disabled by ${actorOf(caller)}` : null
    await writeEndpoint(caller.organizationId, id, (tx) =>
      hookEndpoints.setStatus(tx, caller.organizationId, id, status, reason, clock.now(), actorOf(caller)),
    )
    return toEndpoint(await endpointRow(caller, id))
  }

  return guarded(
    'executionHooks',
    {
      list: ['execution:webhook'],
      get: ['execution:webhook'],
      listDeliveries: ['execution:webhook'],
      getDelivery: ['execution:webhook'],
      create: ['execution:webhook'],
      update: ['execution:webhook'],
      remove: ['execution:webhook'],
      enable: ['execution:webhook'],
      disable: ['execution:webhook'],
      regenerateSecret: ['execution:webhook'],
      retry: ['execution:webhook'],
      replay: ['execution:webhook'],
    },
    {
      async create(
        caller: Principal,
        body: CreateHookEndpointBody,
      ): Promise<{ endpoint: HookEndpoint; signingSecret: string }> {
        const eventTypes = checkEventTypes(body.subscribedEventTypes ?? [])
        await checkUrl(body.url)
        const signingSecret = generateSigningSecret()
        const now = clock.now()
        const row: EndpointRow = {
          id: deps.ids.next('hook'),
          organization_id: caller.organizationId,
          name: body.name,
          description: body.description ?? '',
          url: body.url,
          secret: await deps.secretBox.seal(signingSecret),
          previous_secret: null,
          previous_secret_until: null,
          event_types: JSON.stringify(eventTypes),
          max_retries: body.maxRetries ?? 8,
          status: 'enabled',
          disabled_reason: null,
          disabled_at: null,
          created_at: now,
          created_by: actorOf(caller),
          updated_at: now,
          updated_by: actorOf(caller),
        }
        await writeEndpoint(caller.organizationId, row.id, (tx) => hookEndpoints.insert(tx, row))
        return { endpoint: toEndpoint(row), signingSecret }
      },

      async list(caller: Principal, page: PageRequest): Promise<Page<HookEndpoint>> {
        return toPage((await hookEndpoints.list(store, caller.organizationId, page)).map(toEndpoint), page)
      },

      async get(caller: Principal, id: string): Promise<HookEndpoint> {
        return toEndpoint(await endpointRow(caller, id))
      },

      /** Changes what was given; a new URL passes the same checks as at creation. */
      async update(caller: Principal, id: string, body: UpdateHookEndpointBody): Promise<HookEndpoint> {
        await endpointRow(caller, id)
        const eventTypes =
          body.subscribedEventTypes === undefined ? undefined : checkEventTypes(body.subscribedEventTypes)
        if (body.url !== undefined) await checkUrl(body.url)
        await writeEndpoint(caller.organizationId, id, (tx) =>
          hookEndpoints.update(
            tx,
            caller.organizationId,
            id,
            {
              name: body.name,
              description: body.description,
              url: body.url,
              event_types: eventTypes && JSON.stringify(eventTypes),
              max_retries: body.maxRetries,
            },
            clock.now(),
            actorOf(caller),
          ),
        )
        return toEndpoint(await endpointRow(caller, id))
      },

      /** Deletes the endpoint; its delivery records stay readable, and queued ones are not sent. */
      async remove(caller: Principal, id: string): Promise<HookEndpoint> {
        const row = await endpointRow(caller, id)
        await writeEndpoint(caller.organizationId, id, (tx) => hookEndpoints.remove(tx, caller.organizationId, id))
        return toEndpoint(row)
      },

      enable: (caller: Principal, id: string) => setStatus(caller, id, 'enabled'),
      disable: (caller: Principal, id: string) => setStatus(caller, id, 'disabled'),

      /** A new secret; the old one keeps signing alongside it for `previousSecretTtlSeconds` (default a day). */
      async regenerateSecret(
        caller: Principal,
        id: string,
        body: RegenerateSecretBody = {},
      ): Promise<{ endpoint: HookEndpoint; signingSecret: string }> {
        const current = await endpointRow(caller, id)
        const ttlSeconds = body.previousSecretTtlSeconds ?? 86_400
        const signingSecret = generateSigningSecret()
        const sealed = await deps.secretBox.seal(signingSecret)
        const now = clock.now()
        await writeEndpoint(caller.organizationId, id, (tx) =>
          hookEndpoints.rotateSecret(
            tx,
            caller.organizationId,
            id,
            sealed,
            ttlSeconds > 0 ? current.secret : null,
            ttlSeconds > 0 ? now + ttlSeconds * 1000 : null,
            now,
            actorOf(caller),
          ),
        )
        return { endpoint: toEndpoint(await endpointRow(caller, id)), signingSecret }
      },

      async listDeliveries(caller: Principal, filter: DeliveryFilter, page: PageRequest): Promise<Page<HookDelivery>> {
        return toPage(
          (await hookDeliveries.list(store, caller.organizationId, filter, page)).map((r) => toDelivery(r)),
          page,
        )
      },

      async getDelivery(caller: Principal, id: string): Promise<HookDelivery> {
        const row = await hookDeliveries.byId(store, caller.organizationId, id)
        if (!row) throw notFound('delivery')
        return toDelivery(row, true)
      },

      /** Sends the same record again now; for a delivery that gave up, or one waiting for its next retry. */
      async retry(caller: Principal, id: string): Promise<HookDelivery> {
        const row = await hookDeliveries.byId(store, caller.organizationId, id)
        if (!row) throw notFound('delivery')
        await assertEnabled(caller, row.endpoint_id)
        const requeued = await store.write((tx) => hookDeliveries.requeue(tx, caller.organizationId, id, clock.now()))
        if (requeued === 0) {
          const state =
            row.status === 'success'
              ? 'was delivered (replay it instead)'
              : row.status === 'pending'
                ? 'has not been sent yet'
                : 'is being sent right now'
          throw conflict(`only a failed delivery, or one waiting for a retry, can be retried; this one ${state}`)
        }
        deps.bus.publish(HOOK_DELIVERIES_DUE_SUBJECT, { deliveryId: id })
        return toDelivery((await hookDeliveries.byId(store, caller.organizationId, id))!)
      },

      /** A new delivery record of the same event (same webhook-id and body), sent now. */
      async replay(caller: Principal, id: string): Promise<HookDelivery> {
        const original = await hookDeliveries.byId(store, caller.organizationId, id)
        if (!original) throw notFound('delivery')
        const endpoint = await assertEnabled(caller, original.endpoint_id)
        const now = clock.now()
        const replayId = deps.ids.next('dlv')
        await store.write((tx) =>
          hookDeliveries.insert(tx, [
            {
              id: replayId,
              organization_id: original.organization_id,
              endpoint_id: original.endpoint_id,
              event_id: original.event_id,
              event_type: original.event_type,
              workflow_id: original.workflow_id,
              run_id: original.run_id,
              node_id: original.node_id,
              payload: original.payload,
              status: 'pending',
              max_retries: endpoint.max_retries,
              due_at: now,
              claimed_by: null,
              replay_of: original.id,
              created_at: now,
              updated_at: now,
            },
          ]),
        )
        deps.bus.publish(HOOK_DELIVERIES_DUE_SUBJECT, { deliveryId: replayId })
        return toDelivery((await hookDeliveries.byId(store, caller.organizationId, replayId))!)
      },
    },
  )

  async function assertEnabled(caller: Principal, endpointId: string): Promise<EndpointRow> {
    const endpoint = await hookEndpoints.byId(store, caller.organizationId, endpointId)
    if (!endpoint) throw notFound('execution webhook of this delivery')
    if (endpoint.status !== 'enabled') throw conflict(`the endpoint ${endpointId} is disabled; enable it first`)
    return endpoint
  }
}

export type ExecutionHookService = ReturnType<typeof createExecutionHookService>

function checkEventTypes(types: readonly string[]): string[] {
  const details: ErrorDetail[] = []
  types.forEach((type, i) => {
    if (!isHookEventType(type))
      details.push({
        path: `/subscribedEventTypes/${i}`,
        message: `unknown event type "${type}"; one of ${HOOK_EVENT_TYPES.join(', ')}`,
      })
  })
  if (details.length > 0) throw badRequest('unknown event types in subscribedEventTypes', details)
  return [...new Set(types)]
}

function refusal(error: unknown): AppError {
  if (error instanceof TargetRefusedError) {
    return badRequest(`url is refused: ${error.message}`, [
      { path: '/url', message: `is refused: ${error.message}`, reason: error.reason },
    ])
  }
  const code = (error as { code?: unknown } | null)?.code
  const message =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? 'has a host name that does not resolve'
      : `could not be checked: ${(error as Error)?.message ?? String(error)}`
  return badRequest(`url ${message}`, [{ path: '/url', message }])
}
