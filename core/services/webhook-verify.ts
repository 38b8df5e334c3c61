/**
 * The first half of receiving an integration webhook: the secrets a request may be verified
 * with (by the webhook's `auth`) and the `verify` call for each until one passes. Refusals are
 * AppErrors with the status the webhook chose (400, 401 or 404); a missing secret is a 401,
 * so an endpoint the operator has not configured refuses everything. A plugin that throws is
 * logged and answered 400; it never becomes a 500.
 */
import { AppError, type ErrorDetail } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { RegisteredWebhook } from '../plugin/registry.ts'
import type { WebhookContext, WebhookRequest } from '../plugin/webhook.ts'
import { webhookCrypto } from '../plugin/webhook-crypto.ts'
import type { ConnectorService } from './connectors.ts'
import type { OrganizationWebhookSecretService } from './organization-webhook-secret.ts'
import { errorMessage } from '../errors.ts'

export interface VerifyDeps {
  clock: Clock
  logger: Logger
  connectors: Pick<ConnectorService, 'openAll'>
  webhookSecrets: Pick<OrganizationWebhookSecretService, 'secretOf'>
  /**
   * The values stored under `key` by an organization's enabled trigger subscriptions of a plugin
   * (auth kind `subscription`); absent: there are none.
   */
  subscriptionSecrets?(organizationId: string, pluginId: string, key: string): Promise<string[]>
  /** An operator setting by its environment variable name; null when unset. */
  settings(name: string): string | null
}

/** A request that passed `verify`, with the context it passed with. */
export interface Verified {
  readonly ctx: WebhookContext
  /** The connector whose data verified it (auth kind `connector`). */
  readonly connectorId: string | null
}

const STATUSES = new Set([400, 401, 404])

/** A problem as an error detail: `/path: message` names its field. */
function detailOf(problem: string): ErrorDetail {
  const named = /^(\/\S*): (.+)$/s.exec(problem)
  return named ? { path: named[1], message: named[2] } : { message: problem }
}

/** The refusal; a 400 lists every problem in `details` (the reason alone when none are given). */
const refused = (status: number, message: string, problems: readonly string[] = []) => {
  const code = STATUSES.has(status) ? status : 401
  const details = code === 400 ? (problems.length > 0 ? problems : [message]).map(detailOf) : []
  return new AppError(code, message, details)
}

export function createWebhookVerifier(deps: VerifyDeps) {
  function context(
    entry: RegisteredWebhook,
    organizationId: string | null,
    connector: Record<string, unknown> | null,
    secret: string | null,
  ): WebhookContext {
    const where = `${entry.pluginId}/${entry.webhook.name}`
    return Object.freeze({
      organizationId,
      connector,
      secret,
      crypto: webhookCrypto,
      now: () => deps.clock.now(),
      log: (message: string, fields?: Record<string, unknown>) =>
        deps.logger.debug(message, { webhook: where, ...fields }),
    })
  }

  /** Every context the request may be verified with; 401 when there is none. */
  async function candidates(
    entry: RegisteredWebhook,
    organizationId: string | null,
    query: Readonly<Record<string, string>>,
  ): Promise<Verified[]> {
    const auth = entry.webhook.auth
    if (auth.kind === 'connector') {
      if (!organizationId) throw refused(401, 'this webhook needs an organization in its path')
      const all = await deps.connectors.openAll(organizationId, auth.connector.type)
      const chosen = query.secret ? all.filter((c) => c.id === query.secret) : all
      if (chosen.length === 0) {
        throw refused(
          401,
          query.secret
            ? `the organization has no ${auth.connector.type} connector ${query.secret}`
            : `the organization has no ${auth.connector.type} connector`,
        )
      }
      return chosen.map((c) => ({ ctx: context(entry, organizationId, c.data, null), connectorId: c.id }))
    }
    if (auth.kind === 'organization') {
      const secret = organizationId ? await deps.webhookSecrets.secretOf(organizationId) : null
      if (!secret)
        throw refused(
          401,
          'the organization has no webhook secret yet: read it with GET /v1/organizations/{orgId}/webhook-secret',
        )
      return [{ ctx: context(entry, organizationId, null, secret), connectorId: null }]
    }
    if (auth.kind === 'subscription') {
      const secrets = organizationId
        ? ((await deps.subscriptionSecrets?.(organizationId, entry.pluginId, auth.key)) ?? [])
        : []
      if (secrets.length === 0) throw refused(401, 'the organization has no enabled subscription of this integration')
      return secrets.map((secret) => ({ ctx: context(entry, organizationId, null, secret), connectorId: null }))
    }
    if (auth.kind === 'setting') {
      const secret = deps.settings(auth.setting)
      if (!secret) throw refused(401, `this endpoint is not configured: the operator has not set ${auth.setting}`)
      return [{ ctx: context(entry, organizationId, null, secret), connectorId: null }]
    }
    return [{ ctx: context(entry, organizationId, null, null), connectorId: null }]
  }

  return {
    /** Runs `verify` with each candidate until one passes; throws the most telling refusal otherwise. */
    async verify(entry: RegisteredWebhook, request: WebhookRequest, organizationId: string | null): Promise<Verified> {
      let refusal: AppError | null = null
      for (const candidate of await candidates(entry, organizationId, request.query)) {
        let verdict: Awaited<ReturnType<typeof entry.webhook.verify>>
        try {
          verdict = await entry.webhook.verify(request, candidate.ctx)
        } catch (error) {
          deps.logger.warn('a webhook verify() threw', {
            plugin: entry.pluginId,
            webhook: entry.webhook.name,
            error: errorMessage(error),
          })
          throw refused(400, 'the request could not be verified')
        }
        if (verdict?.ok === true) return candidate
        const next = refused(
          verdict?.ok === false ? verdict.status : 401,
          verdict?.ok === false && verdict.reason ? verdict.reason : 'the request could not be verified',
          verdict?.ok === false && Array.isArray(verdict.problems) ? verdict.problems.map(String) : [],
        )
        // A malformed request (400) says more than "this secret did not sign it" (401).
        if (!refusal || refusal.status === 401) refusal = next
      }
      throw refusal ?? refused(401, 'the request could not be verified')
    },
  }
}
