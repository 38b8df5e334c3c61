/**
 * createApp: the HTTP API as one Elysia instance, built from the services it is given.
 * Knows no runtime: server adapters call `app.handle(request)`.
 */
import { Elysia } from 'elysia'
import type { Bus } from '../ports/bus.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { Registry } from '../plugin/registry.ts'
import type { ApiKeyService } from '../services/api-keys.ts'
import type { AuthService } from '../services/auth.ts'
import type { ConnectorService } from '../services/connectors.ts'
import type { ExecutionHookService } from '../services/execution-hooks.ts'
import type { MemberService } from '../services/members.ts'
import type { OrganizationSettingsService } from '../services/organization-settings.ts'
import type { RunService } from '../services/runs.ts'
import type { ScheduleService } from '../services/schedules.ts'
import type { ServiceAccountService } from '../services/service-accounts.ts'
import type { WebhookEventService } from '../services/webhook-events.ts'
import type { WebhookIntake } from '../services/webhook-intake.ts'
import type { WebhookSecretService } from '../services/webhook-secrets.ts'
import type { WorkflowService } from '../services/workflows.ts'
import type { StreamHub } from '../ports/streams.ts'
import type { RouteLike } from './openapi.ts'
import type { PushBodyFactory } from './sse.ts'
import { authPlugin } from './plugins/auth.ts'
import { bodyPlugin } from './plugins/body.ts'
import { clientPlugin } from './plugins/client.ts'
import { envelopePlugin } from './plugins/envelope.ts'
import { errorsPlugin } from './plugins/errors.ts'
import { requestIdPlugin } from './plugins/request-id.ts'
import { apiKeyRoutes } from './routes/api-keys.ts'
import { catalogRoutes } from './routes/catalog.ts'
import { connectorRoutes } from './routes/connectors.ts'
import { executionHookRoutes } from './routes/execution-hooks.ts'
import { healthRoutes } from './routes/health.ts'
import { integrationRoutes, routeShape } from './routes/integrations.ts'
import { openApiRoutes } from './routes/openapi.ts'
import { memberRoutes } from './routes/members.ts'
import { organizationRoutes } from './routes/organizations.ts'
import { runRoutes, webhookRoutes } from './routes/runs.ts'
import { scheduleRoutes } from './routes/schedules.ts'
import { serviceAccountRoutes } from './routes/service-accounts.ts'
import { streamRoutes } from './routes/streams.ts'
import { webhookEventRoutes } from './routes/webhook-events.ts'
import { workflowRoutes } from './routes/workflows.ts'

export interface AppDeps {
  readonly version: string
  readonly maxBodyBytes: number
  readonly logger: Logger
  readonly ids: Ids
  readonly store: Store
  readonly bus: Bus
  readonly auth: AuthService
  readonly apiKeys: ApiKeyService
  readonly serviceAccounts: ServiceAccountService
  readonly members: MemberService
  readonly workflows: WorkflowService
  readonly runs: RunService
  readonly streams: { hub: StreamHub; heartbeatMs: number; maxBufferedBytes: number; pushBody?: PushBodyFactory }
  readonly schedules: ScheduleService
  readonly registry: Registry
  readonly connectors: ConnectorService
  readonly executionHooks: ExecutionHookService
  readonly webhookIntake: WebhookIntake
  readonly webhookEvents: WebhookEventService
  readonly webhookSecrets: WebhookSecretService
  readonly organizationSettings: OrganizationSettingsService
  /** AUTOMATON_TRUSTED_PROXIES: addresses whose X-Forwarded-For and X-Forwarded-Proto are believed. */
  readonly trustedProxies?: readonly string[]
}

export function createApp(deps: AppDeps) {
  const auth = authPlugin(deps.auth)
  let routes: () => readonly RouteLike[] = () => []
  const app = new Elysia({ name: 'automaton' })
    .use(requestIdPlugin(deps.ids))
    .use(clientPlugin(deps.trustedProxies ?? []))
    .use(errorsPlugin(deps.logger))
    .use(envelopePlugin())
    .use(bodyPlugin(deps.maxBodyBytes))
    .use(healthRoutes(deps))
    .use(openApiRoutes(() => routes(), deps.version))
    .use(apiKeyRoutes(auth, deps.apiKeys))
    .use(serviceAccountRoutes(auth, deps.serviceAccounts))
    .use(memberRoutes(auth, deps.members))
    .use(workflowRoutes(auth, deps.workflows, deps.runs))
    .use(scheduleRoutes(auth, deps.schedules))
    .use(runRoutes(auth, deps.auth, deps.runs))
    .use(webhookRoutes(deps.runs))
    .use(streamRoutes(auth, { store: deps.store, ...deps.streams }))
    .use(catalogRoutes(auth, deps.registry))
    .use(connectorRoutes(auth, deps.connectors))
    .use(executionHookRoutes(auth, deps.executionHooks))
    .use(webhookEventRoutes(auth, deps.webhookEvents))
    .use(organizationRoutes(auth, deps.webhookSecrets, deps.organizationSettings))
  // Plugins' webhooks last, so that none can take a route of the server.
  const taken = new Set(app.routes.filter((r) => r.method === 'POST').map((r) => routeShape(r.path)))
  app.use(integrationRoutes(deps.registry.webhooks(), deps.webhookIntake, taken))
  routes = () => app.routes
  return app
}

export type App = ReturnType<typeof createApp>
