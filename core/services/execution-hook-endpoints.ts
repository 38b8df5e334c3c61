/**
 * Managing execution hook endpoints: created only for URLs the SSRF guard accepts, with a
 * `whsec_` signing secret shown once and sealed at rest; changed, removed, enabled and disabled,
 * and their secret rotated. Every write tells every process's cache, over the bus.
 */
import {
  type CreateHookEndpointBody,
  HOOK_EVENT_TYPES,
  type HookEndpoint,
  isHookEventType,
  type RegenerateSecretBody,
  type UpdateHookEndpointBody,
} from '../domain/execution-hook.ts'
import { type AppError, badRequest, type ErrorDetail } from '../errors.ts'
import { TargetRefusedError } from '../ports/http-client.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { hookUrlProblem } from '../security/hook-url.ts'
import { generateSigningSecret } from '../security/webhook-signature.ts'
import { type EndpointRow, hookEndpoints, toEndpoint } from '../store/hook-endpoints.ts'
import { actorOf, type Principal } from './auth.ts'
import {
  type ExecutionHookDeps,
  endpointRow as rowOf,
  HOOK_ENDPOINT_CHANGED_SUBJECT,
} from './execution-hook-context.ts'

/** The endpoint operations of the execution hook service. */
export function endpointOperations(deps: ExecutionHookDeps) {
  const { store, clock } = deps
  const endpointRow = (caller: Principal, id: string) => rowOf(deps, caller, id)

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

  return {
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
  }
}

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
