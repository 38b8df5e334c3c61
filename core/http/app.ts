/**
 * createApp: the HTTP API as one Elysia instance, built from the services it is given.
 * Knows no runtime: server adapters call `app.handle(request)`.
 */
import { x402EndpointRoutes } from './routes/x402-endpoints.ts'
import { agentRoutes } from './routes/agents.ts'
import { cardRoutes } from './routes/cards.ts'
import type { CardService } from '../services/cards.ts'
import type { AgentService } from '../services/agents.ts'
import type { X402Endpoints } from '../services/x402-endpoints.ts'
import { x402Routes } from './routes/x402.ts'
import type { X402Service } from '../services/x402.ts'
import { walletRoutes } from './routes/wallets.ts'
import type { WalletService } from '../services/wallets.ts'
import { Elysia } from 'elysia'
import { registerFormats } from '../plugin/formats.ts'
import type { Bus } from '../ports/bus.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { Registry } from '../plugin/registry.ts'
import type { ApiKeyService } from '../services/api-keys.ts'
import type { AuthService } from '../services/auth.ts'
import type { CatalogOptionsService } from '../services/catalog-options.ts'
import type { ConnectorService } from '../services/connectors.ts'
import type { ConnectorOAuth2Service } from '../services/connector-oauth2.ts'
import type { ExecutionHookService } from '../services/execution-hooks.ts'
import type { MemberService } from '../services/members.ts'
import type { PeopleService } from '../services/people.ts'
import type { OidcService } from '../services/oidc.ts'
import { oidcRoutes } from './routes/auth-oidc.ts'
import type { TemplateService } from '../services/templates.ts'
import type { BuilderChat } from '../services/builder-chat.ts'
import type { ContractChat } from '../services/contract-chat.ts'
import { type AppService, MAX_APP_BYTES } from '../services/apps.ts'
import type { OrganizationSettingsService } from '../services/organization-settings.ts'
import type { RunOutputs } from '../services/run-outputs.ts'
import type { RunService } from '../services/runs.ts'
import type { ScheduleService } from '../services/schedules.ts'
import type { PollService } from '../services/polls.ts'
import type { SubscriptionService } from '../services/subscriptions.ts'
import type { NodeMigrationService } from '../services/node-migrations.ts'
import type { ServiceAccountService } from '../services/service-accounts.ts'
import type { WebhookEventService } from '../services/webhook-events.ts'
import type { WebhookIntake } from '../services/webhook-intake.ts'
import type { OrganizationWebhookSecretService } from '../services/organization-webhook-secret.ts'
import type { WorkflowService } from '../services/workflows.ts'
import type { Clock } from '../ports/clock.ts'
import type { StreamHub } from '../ports/streams.ts'
import type { RouteLike } from './openapi.ts'
import type { PushBodyFactory } from './sse.ts'
import { authenticatedRoutes, authPlugin, createAuthGate } from './middleware/auth.ts'
import { bodyPlugin } from './middleware/body.ts'
import { clientPlugin } from './middleware/client.ts'
import { envelopePlugin } from './middleware/envelope.ts'
import { errorsPlugin } from './middleware/errors.ts'
import { requestIdPlugin } from './middleware/request-id.ts'
import { aiRoutes } from './routes/ai.ts'
import { apiKeyRoutes } from './routes/api-keys.ts'
import { authRoutes } from './routes/auth.ts'
import { catalogRoutes } from './routes/catalog.ts'
import { connectorRoutes } from './routes/connectors.ts'
import { connectorOAuth2Routes } from './routes/connector-oauth2.ts'
import { executionHookRoutes } from './routes/execution-hooks.ts'
import { healthRoutes } from './routes/health.ts'
import { metricsRoutes } from './routes/metrics.ts'
import type { Metrics } from '../ports/metrics.ts'
import type { BacklogReport } from '../ports/engine.ts'
import { integrationRoutes, routeShape } from './routes/integrations.ts'
import { openApiRoutes } from './routes/openapi.ts'
import { invitationRoutes, memberRoutes } from './routes/members.ts'
import { organizationRoutes } from './routes/organizations.ts'
import { runRoutes } from './routes/runs.ts'
import { workflowWebhookRoutes } from './routes/workflow-webhooks.ts'
import { scheduleRoutes } from './routes/schedules.ts'
import { pollRoutes } from './routes/polls.ts'
import { subscriptionRoutes } from './routes/subscriptions.ts'
import { nodeMigrationRoutes } from './routes/node-migrations.ts'
import { serviceAccountRoutes } from './routes/service-accounts.ts'
import { streamRoutes } from './routes/streams.ts'
import { webhookEventRoutes } from './routes/webhook-events.ts'
import { workflowRoutes } from './routes/workflows.ts'
import { universeRoutes } from './routes/universe.ts'
import { templateRoutes } from './routes/templates.ts'
import { widgetRoutes } from './routes/widgets.ts'
import { consoleRoutes } from './routes/console.ts'
import type { UniverseService } from '../services/universe.ts'
import type { AuditLog } from '../services/audit-log.ts'
import { auditRoutes } from './routes/audit-events.ts'
import { auditedHandle } from './audit-scope.ts'

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
  readonly people: PeopleService
  /** Single sign-on; absent: no `/v1/auth/oidc` routes. */
  readonly oidc?: OidcService
  readonly templates: TemplateService
  readonly wallets: WalletService
  readonly x402?: X402Service
  readonly x402Endpoints?: X402Endpoints
  readonly agents?: AgentService
  readonly cards?: CardService
  readonly builderChat: BuilderChat
  readonly contractChat: ContractChat
  readonly apps: AppService
  /** Whether an organization is the operator's (it alone moderates templates). */
  readonly isOperator?: (organizationId: string) => Promise<boolean>
  readonly workflows: WorkflowService
  readonly runs: RunService
  /** Answers that wait for a run's output (`Prefer: wait`, paid calls); absent: answers never wait. */
  readonly runOutputs?: RunOutputs
  readonly streams: {
    hub: StreamHub
    heartbeatMs: number
    maxBufferedBytes: number
    pushBody?: PushBodyFactory
    runAppearWaitMs?: number
    maxStreamsPerCaller?: number
    /** The wait for a run that does not exist yet is on this clock. */
    clock?: Clock
  }
  readonly schedules: ScheduleService
  readonly polls: PollService
  readonly subscriptions: SubscriptionService
  readonly nodeMigrations: NodeMigrationService
  readonly registry: Registry
  /** Dynamic options of payload fields (`POST /v1/catalog/…/options`); absent: not served. */
  readonly catalogOptions?: CatalogOptionsService
  readonly connectors: ConnectorService
  /** OAuth2 connectors' authorization (start and callback); absent: not served. */
  readonly connectorOAuth2?: ConnectorOAuth2Service
  readonly executionHooks: ExecutionHookService
  readonly webhookIntake: WebhookIntake
  readonly webhookEvents: WebhookEventService
  readonly webhookSecrets: OrganizationWebhookSecretService
  readonly organizationSettings: OrganizationSettingsService
  /** AUTOMATON_TRUSTED_PROXIES: addresses whose X-Forwarded-For and X-Forwarded-Proto are believed. */
  readonly trustedProxies?: readonly string[]
  readonly universe: UniverseService
  /** This process's metrics, served at /metrics (AUTOMATON_METRICS_TOKEN guards it when set). */
  readonly metrics?: Metrics
  readonly metricsToken?: string | null
  /** The admission backlog, reported by /readyz (null: unbounded). */
  readonly backlog?: () => BacklogReport | null
  /** The audit log: its routes, and each request's act recorded (docs/audit.md); absent: neither. */
  readonly audit?: AuditLog
}

/** An app's files may total 2 MiB; as JSON text (escapes included) its body may be larger. */
const APP_BODY_ROUTES = new Map([
  ['POST /v1/apps', MAX_APP_BYTES * 2],
  ['PUT /v1/apps/:id', MAX_APP_BYTES * 2],
])

/**
 * The HTTP API as server adapters and tests use it: a function from a request to a response.
 * Knows no runtime; the routes, their schemas and the OpenAPI document stay inside.
 */
export interface App {
  /** Answers one request. */
  handle(request: Request): Promise<Response>
  /** The same, as the fetch handler a server adapter serves. */
  readonly fetch: (request: Request) => Response | Promise<Response>
}

export function createApp(deps: AppDeps): App {
  // Once every module is loaded: the framework's own string formats give way to ours (formats.ts).
  registerFormats()
  const gate = createAuthGate(deps.auth, deps.people, deps.isOperator)
  const auth = authPlugin(gate)
  let routes: () => readonly RouteLike[] = () => []
  let keyed: ReadonlySet<string> = new Set()
  // 'typebox' normalization drops unknown properties but refuses wrong types (the default would
  // coerce a number or an array given for an object into {}).
  const app = new Elysia({ name: 'automaton', normalize: 'typebox' })
    .use(requestIdPlugin(deps.ids))
    .use(clientPlugin(deps.trustedProxies ?? []))
    .use(errorsPlugin(deps.logger))
    .use(envelopePlugin())
    .use(
      bodyPlugin(
        deps.maxBodyBytes,
        { keyed: () => keyed, authenticate: (request) => gate.principalOf(request) },
        APP_BODY_ROUTES,
      ),
    )
    .use(healthRoutes(deps))
    .use(deps.metrics ? metricsRoutes(deps.metrics, deps.metricsToken ?? null) : new Elysia({ name: 'routes.metrics' }))
    .use(openApiRoutes(() => routes(), deps.version))
    .use(apiKeyRoutes(auth, deps.apiKeys))
    .use(serviceAccountRoutes(auth, deps.serviceAccounts))
    .use(memberRoutes(auth, deps.members, deps.people))
    .use(invitationRoutes(auth, deps.people))
    .use(authRoutes(auth, gate, deps.people))
    .use(deps.oidc ? oidcRoutes(deps.oidc, deps.people.settings.maxAgeMs) : new Elysia({ name: 'routes.auth-oidc' }))
    .use(workflowRoutes(auth, deps.workflows, deps.runs, deps.runOutputs))
    .use(scheduleRoutes(auth, deps.schedules))
    .use(pollRoutes(auth, deps.polls))
    .use(subscriptionRoutes(auth, deps.subscriptions))
    .use(nodeMigrationRoutes(auth, deps.nodeMigrations))
    .use(runRoutes(auth, gate, deps.runs))
    .use(workflowWebhookRoutes(deps.runs, deps.x402, deps.runOutputs))
    .use(deps.x402 ? x402Routes(deps.x402, deps.runOutputs) : new Elysia({ name: 'routes.x402' }))
    .use(streamRoutes(auth, { runs: deps.runs, ...deps.streams, metrics: deps.metrics }))
    .use(catalogRoutes(auth, deps.registry, deps.catalogOptions))
    .use(connectorRoutes(auth, deps.connectors))
    .use(
      deps.connectorOAuth2
        ? connectorOAuth2Routes(auth, deps.connectorOAuth2)
        : new Elysia({ name: 'routes.connector-oauth2' }),
    )
    .use(aiRoutes(auth, { builder: deps.builderChat, contracts: deps.contractChat, sse: deps.streams }))
    .use(executionHookRoutes(auth, deps.executionHooks))
    .use(webhookEventRoutes(auth, deps.webhookEvents))
    .use(organizationRoutes(auth, deps.webhookSecrets, deps.organizationSettings))
    .use(universeRoutes(auth, deps.universe))
    .use(templateRoutes(auth, deps.templates, deps.apps))
    .use(walletRoutes(auth, deps.wallets))
    .use(
      deps.x402Endpoints ? x402EndpointRoutes(auth, deps.x402Endpoints) : new Elysia({ name: 'routes.x402-endpoints' }),
    )
    .use(deps.agents ? agentRoutes(auth, deps.agents) : new Elysia({ name: 'routes.agents' }))
    .use(deps.cards ? cardRoutes(auth, deps.cards) : new Elysia({ name: 'routes.cards' }))
    .use(widgetRoutes(deps.apps))
    .use(deps.audit ? auditRoutes(auth, deps.audit, deps.streams) : new Elysia({ name: 'routes.audit-events' }))
  app.use(consoleRoutes())
  // Plugins' webhooks last, so that none can take a route of the server.
  const taken = new Set(app.routes.filter((r) => r.method === 'POST').map((r) => routeShape(r.path)))
  app.use(integrationRoutes(deps.registry.webhooks(), deps.webhookIntake, taken))
  routes = () => app.routes
  keyed = authenticatedRoutes(app.routes)
  if (!deps.audit) return app
  const routeOf = (request: Request) => `${request.method} ${new URL(request.url).pathname}`
  const handle = auditedHandle((request) => app.handle(request), { ...deps, audit: deps.audit, routeOf })
  return { handle, fetch: handle }
}
