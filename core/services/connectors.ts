/**
 * Connectors: per-organization configuration for third-party platforms, typed by the connector
 * types of the loaded plugins. Secret fields are sealed with the secret box and never leave this
 * service except to a node that uses the connector (`resolve`) or a webhook that verifies with
 * it (`openAll`, `findByData`); the API shows `maskedData` only.
 *
 * This file holds the contract and the API's operations (create, list, get, update, delete);
 * sealing (connector-sealing.ts) and the engine's resolution (connector-resolution.ts) live beside it.
 */
import type { Connector, CreateConnectorBody, OpenedConnector, UpdateConnectorBody } from '../domain/connector.ts'
import type { CheckedConnector, ConnectorCheck } from '../domain/connector-check.ts'
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { WorkflowContent } from '../domain/workflow.ts'
import { badRequest, conflict, type ErrorDetail, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { PluginCalls } from '../ports/plugin-calls.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import type { Registry } from '../plugin/registry.ts'
import { type ConnectorRow, connectors } from '../store/connectors.ts'
import { actorOf, type Principal } from './auth.ts'
import { type Data, mergeUpdate, refuseMasks, validateData } from './connector-data.ts'
import { checkConnector, withCheck } from './connector-checks.ts'
import { checkReferences, findByData, resolveConnector } from './connector-resolution.ts'
import { connectorType, openConnector, sealedColumns, secretsOf, toConnector } from './connector-sealing.ts'
import type { ConnectorOAuth2Service } from './connector-oauth2.ts'
import { guarded, type OperationTable } from './operations.ts'

export interface ConnectorServiceDeps {
  store: Store
  clock: Clock
  ids: Ids
  registry: Registry
  secretBox: SecretBox
  /** Told after a connector of the organization was created, changed or deleted (secret masks forget theirs). */
  onChange?(organizationId: string): void
  /** Runs connector types' checks (`test`); absent: no check runs. */
  checks?: PluginCalls
  /** OAuth2 connectors: their state on output, and a current access token when a node opens one. */
  oauth2?: Pick<ConnectorOAuth2Service, 'statusOf' | 'open'>
}

/** The organization's connectors for the API (a caller first), and for the engine (no caller). */
export interface ConnectorService {
  /** Creates a connector, then runs its type's check: its answer is `test`, and a failing check keeps the connector. */
  create(caller: Principal, body: CreateConnectorBody): Promise<CheckedConnector>
  list(caller: Principal, page: PageRequest, type?: string): Promise<Page<Connector>>
  get(caller: Principal, id: string): Promise<Connector>
  /** Replaces name, description and data (see mergeUpdate for secrets); the type cannot change. */
  update(caller: Principal, id: string, body: UpdateConnectorBody): Promise<CheckedConnector>
  /** Runs the connector type's check now; null when the type declares none. */
  test(caller: Principal, id: string): Promise<ConnectorCheck | null>
  /** Deletes a connector no live workflow names; 409 listing the workflows otherwise. */
  remove(caller: Principal, id: string): Promise<Connector>
  /**
   * The engine's connector capability: the connector a node uses, opened. A missing or
   * ambiguous connector is a ConnectorUnavailableError (retrying will not help); other errors
   * (the database) are worth a retry.
   */
  resolve(
    organizationId: string,
    ref: { type?: string; id?: string } | undefined,
    requiredType: string,
  ): Promise<OpenedConnector>
  /** An organization's connectors of a type, opened (a webhook verifying with each in turn). */
  openAll(organizationId: string, type: string): Promise<OpenedConnector[]>
  /** Connectors of a type, in any organization, whose plain data has these field values (installation-wide routing). */
  findByData(type: string, fields: Readonly<Record<string, string>>): Promise<OpenedConnector[]>
  /** Publish guard: every connector a node names exists with the right type; an action that needs one can find it. */
  publishGuard(content: WorkflowContent, organizationId: string, tx: SqlExecutor): Promise<ErrorDetail[]>
}

const OPERATIONS: OperationTable<ConnectorService> = {
  create: ['connector:create'],
  list: ['connector:read'],
  get: ['connector:read'],
  update: ['connector:update'],
  remove: ['connector:delete'],
  test: ['connector:read'],
  // The engine's, for nodes and triggers of the organization: no caller.
  resolve: null,
  openAll: null,
  findByData: null,
  publishGuard: null,
}

export function createConnectorService(deps: ConnectorServiceDeps): ConnectorService {
  const { store } = deps
  return guarded<ConnectorService>('connectors', OPERATIONS, {
    create: async (caller, body) => withCheck(deps, await createConnector(deps, caller, body)),

    async list(caller, page, type) {
      const rows = await connectors.list(store, caller.organizationId, page, type)
      const result = toPage(rows, page)
      return { ...result, items: await Promise.all(result.items.map((row) => toConnector(deps, row))) }
    },

    get: async (caller, id) => toConnector(deps, await load(deps, caller, id)),
    update: async (caller, id, body) => withCheck(deps, await updateConnector(deps, caller, id, body)),
    test: async (caller, id) => checkConnector(deps, caller.organizationId, id),
    remove: async (caller, id) => removeConnector(deps, caller, id),
    resolve: async (organizationId, ref, requiredType) => resolveConnector(deps, organizationId, ref, requiredType),

    async openAll(organizationId, type) {
      return Promise.all((await connectors.ofType(store, organizationId, type)).map((row) => openConnector(deps, row)))
    },

    findByData: async (type, fields) => findByData(deps, type, fields),
    publishGuard: async (content, organizationId, tx) =>
      checkReferences(deps.registry, content.definition, organizationId, tx),
  })
}

async function load(deps: ConnectorServiceDeps, caller: Principal, id: string): Promise<ConnectorRow> {
  const row = await connectors.byId(deps.store, caller.organizationId, id)
  if (!row) throw notFound('connector')
  return row
}

async function createConnector(
  deps: ConnectorServiceDeps,
  caller: Principal,
  body: CreateConnectorBody,
): Promise<Connector> {
  const type = connectorType(deps, body.type)
  const data = validateData(type, body.data)
  refuseMasks(type, data)
  const at = deps.clock.now()
  const row: ConnectorRow = {
    id: deps.ids.next('con'),
    organization_id: caller.organizationId,
    type: type.type,
    provider: type.provider,
    name: body.name,
    description: body.description ?? '',
    ...(await sealedColumns(deps, type.type, data)),
    created_at: at,
    created_by: actorOf(caller),
    updated_at: at,
    updated_by: actorOf(caller),
  }
  await deps.store.write((tx) => connectors.insert(tx, row))
  deps.onChange?.(caller.organizationId)
  return toConnector(deps, row)
}

/** Replaces name, description and data (see mergeUpdate for secrets); the type cannot change. */
async function updateConnector(
  deps: ConnectorServiceDeps,
  caller: Principal,
  id: string,
  body: UpdateConnectorBody,
): Promise<Connector> {
  const row = await load(deps, caller, id)
  if (body.type !== undefined && body.type !== row.type)
    throw badRequest('the type of a connector cannot change', [
      { path: '/type', message: `is ${row.type}; create a new connector for another type` },
    ])
  let data: { public_data: string; sealed_secrets: string | null } = {
    public_data: row.public_data,
    sealed_secrets: row.sealed_secrets,
  }
  if (body.data !== undefined) {
    const type = connectorType(deps, row.type, '/type')
    const merged = mergeUpdate(
      type,
      { plain: JSON.parse(row.public_data) as Data, secrets: await secretsOf(deps, row) },
      body.data,
    )
    data = await sealedColumns(deps, row.type, validateData(type, merged))
  }
  const next = {
    ...row,
    ...data,
    name: body.name ?? row.name,
    description: body.description ?? row.description,
    updated_at: deps.clock.now(),
    updated_by: actorOf(caller),
  }
  const changed = await deps.store.write((tx) => connectors.update(tx, next))
  if (changed === 0) throw notFound('connector')
  deps.onChange?.(caller.organizationId)
  return toConnector(deps, next)
}

/** Deletes a connector no live workflow names; 409 listing the workflows otherwise. */
async function removeConnector(deps: ConnectorServiceDeps, caller: Principal, id: string): Promise<Connector> {
  const row = await load(deps, caller, id)
  const users = await deps.store.write(async (tx) => {
    const using = await liveUsers(tx, caller.organizationId, id)
    if (using.length === 0) await connectors.remove(tx, caller.organizationId, id)
    return using
  })
  if (users.length > 0) {
    throw conflict(
      'the connector is used by live workflows; change or archive them first',
      users.map((workflowId) => ({ path: '/id', message: `used by workflow ${workflowId}`, workflowId })),
    )
  }
  deps.onChange?.(caller.organizationId)
  return toConnector(deps, row)
}

async function liveUsers(tx: SqlExecutor, organizationId: string, connectorId: string): Promise<string[]> {
  const rows = await connectors.liveVersionsMentioning(tx, organizationId, connectorId)
  return rows
    .filter((r) => {
      const content = JSON.parse(r.content) as WorkflowContent
      return Object.values(content.definition?.nodes ?? {}).some((n) => n.connector?.id === connectorId)
    })
    .map((r) => r.id)
}
