/** What an open system holds, and the parts each step of building it returns. */
import type { Config } from '../core/config.ts'
import type { App } from '../core/http/app.ts'
import type { Registry } from '../core/plugin/registry.ts'
import type { PluginDefinition } from '../core/plugin/sdk.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Chains } from '../core/ports/chain.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { SolidityCompiler } from '../core/ports/compiler.ts'
import type { HttpClient } from '../core/ports/http-client.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Metrics } from '../core/ports/metrics.ts'
import type { PaymentScheme } from '../core/ports/payment-scheme.ts'
import type { Store } from '../core/ports/store.ts'
import type { AuditLog } from '../core/services/audit-log.ts'
import type { Tracing } from '../core/ports/tracing.ts'
import type { WorkQueue } from '../core/ports/work-queue.ts'
import type { Keyring } from '../core/security/secret-box.ts'
import type { AgentService } from '../core/services/agents.ts'
import type { AiService } from '../core/services/ai.ts'
import type { ApiKeyService } from '../core/services/api-keys.ts'
import type { AppService } from '../core/services/apps.ts'
import type { AuthService } from '../core/services/auth.ts'
import type { BuilderChat } from '../core/services/builder-chat.ts'
import type { CardService } from '../core/services/cards.ts'
import type { CatalogOptionsService } from '../core/services/catalog-options.ts'
import type { ConnectorOAuth2Service } from '../core/services/connector-oauth2.ts'
import type { ConnectorService } from '../core/services/connectors.ts'
import type { ContractChat } from '../core/services/contract-chat.ts'
import type { ExecutionHookService } from '../core/services/execution-hooks.ts'
import type { MemberService } from '../core/services/members.ts'
import type { OrganizationSettingsService } from '../core/services/organization-settings.ts'
import type { OrganizationWebhookSecretService } from '../core/services/organization-webhook-secret.ts'
import type { OrganizationService } from '../core/services/organizations.ts'
import type { OidcService } from '../core/services/oidc.ts'
import type { PeopleService } from '../core/services/people.ts'
import type { RunService } from '../core/services/runs.ts'
import type { ScheduleService } from '../core/services/schedules.ts'
import type { PollService } from '../core/services/polls.ts'
import type { SubscriptionService } from '../core/services/subscriptions.ts'
import type { NodeMigrationService } from '../core/services/node-migrations.ts'
import type { SecretMaskService } from '../core/services/secret-masks.ts'
import type { ServiceAccountService } from '../core/services/service-accounts.ts'
import type { TemplateService } from '../core/services/templates.ts'
import type { UniverseService } from '../core/services/universe.ts'
import type { WalletService } from '../core/services/wallets.ts'
import type { WebhookEventService } from '../core/services/webhook-events.ts'
import type { WebhookIntake } from '../core/services/webhook-intake.ts'
import type { WorkflowService } from '../core/services/workflows.ts'
import type { X402Endpoints } from '../core/services/x402-endpoints.ts'
import type { X402Service } from '../core/services/x402.ts'
import type { HookDelivery } from '../runtime/hooks/index.ts'
import type { Engine, EngineRole } from '../runtime/index.ts'
import type { Pruner } from '../runtime/retention.ts'

export interface SystemOptions {
  readonly logger?: Logger
  readonly clock?: Clock
  /** Plugins beside the built-in ones (tests). */
  readonly plugins?: readonly PluginDefinition[]
  /** Whether to recover runs, fire timers and deliver execution hooks; commands that only read or mint keys do not. */
  readonly engine?: boolean
  /** `embedded` (default without NATS), `api` (default with NATS) or `worker`. */
  readonly role?: EngineRole
  /** The outbound HTTP client (tests inject one with their own name resolution); the SSRF-guarded client by default. */
  readonly http?: HttpClient
  /** Where spans go (tests capture them); by default OTLP/HTTP to AUTOMATON_OTLP_ENDPOINT, or nowhere. */
  readonly tracing?: Tracing
}

/** An open system: what tests, benchmarks and the commands reach, in the order it is built. */
export interface System {
  readonly config: Config
  readonly logger: Logger
  readonly clock: Clock
  readonly ids: Ids
  readonly registry: Registry
  readonly store: Store
  readonly role: EngineRole
  readonly bus: Bus
  readonly workQueue: WorkQueue
  readonly secretBox: Keyring
  readonly metrics: Metrics
  readonly tracing: Tracing
  readonly http: HttpClient
  readonly chains: Chains
  readonly scheme: PaymentScheme
  readonly compiler: SolidityCompiler
  /** The audit log (the store above records audited acts through it). */
  readonly audit: AuditLog
  readonly auth: AuthService
  readonly apiKeys: ApiKeyService
  readonly serviceAccounts: ServiceAccountService
  readonly organizations: OrganizationService
  readonly people: PeopleService
  /** Single sign-on with OpenID Connect providers. */
  readonly oidc: OidcService
  readonly members: MemberService
  readonly masks: SecretMaskService
  readonly ai: AiService
  readonly connectors: ConnectorService
  readonly connectorOAuth2: ConnectorOAuth2Service
  readonly cards: CardService
  readonly x402Endpoints: X402Endpoints
  readonly engine: Engine
  readonly hooks: HookDelivery | null
  readonly pruner: Pruner
  readonly executionHooks: ExecutionHookService
  readonly universe: UniverseService
  readonly workflows: WorkflowService
  readonly runs: RunService
  readonly templates: TemplateService
  readonly apps: AppService
  readonly schedules: ScheduleService
  readonly polls: PollService
  readonly subscriptions: SubscriptionService
  readonly catalogOptions: CatalogOptionsService
  readonly nodeMigrations: NodeMigrationService
  readonly builderChat: BuilderChat
  readonly contractChat: ContractChat
  readonly wallets: WalletService
  readonly x402: X402Service
  readonly webhookSecrets: OrganizationWebhookSecretService
  readonly webhookEvents: WebhookEventService
  readonly organizationSettings: OrganizationSettingsService
  readonly webhookIntake: WebhookIntake
  readonly agents: AgentService
  readonly app: App
  /** Releases everything the system opened, in reverse order. */
  close(): Promise<void>
}

/** The adapters and plugins every service is built on. */
export type Adapters = Pick<
  System,
  | 'config'
  | 'logger'
  | 'clock'
  | 'ids'
  | 'registry'
  | 'store'
  | 'role'
  | 'bus'
  | 'workQueue'
  | 'secretBox'
  | 'metrics'
  | 'tracing'
  | 'http'
  | 'chains'
  | 'scheme'
  | 'compiler'
  | 'audit'
>
/** Who calls: keys, service accounts, people and their sessions. */
export type Access = Pick<
  System,
  'auth' | 'apiKeys' | 'serviceAccounts' | 'organizations' | 'people' | 'oidc' | 'members'
>
/** What the engine's nodes call besides the plugins' own code. */
export type NodeServices = Pick<System, 'masks' | 'ai' | 'connectors' | 'connectorOAuth2' | 'cards' | 'x402Endpoints'>
/** The services of the API's resources. */
export type Services = Pick<
  System,
  | 'executionHooks'
  | 'universe'
  | 'workflows'
  | 'runs'
  | 'templates'
  | 'apps'
  | 'schedules'
  | 'polls'
  | 'subscriptions'
  | 'catalogOptions'
  | 'nodeMigrations'
  | 'agents'
  | 'builderChat'
  | 'contractChat'
  | 'wallets'
  | 'x402'
  | 'webhookSecrets'
  | 'webhookEvents'
  | 'organizationSettings'
  | 'webhookIntake'
>

/** Acquires a resource and registers its release; releases run in reverse order. */
export type Own = <T>(acquire: () => Promise<T> | T, release: (value: T) => Promise<unknown> | unknown) => Promise<T>
