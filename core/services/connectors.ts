/**
 * Connectors: per-organization configuration for third-party platforms, typed by the connector
 * types of the loaded plugins. Secret fields are sealed with the secret box and never leave this
 * service except to a node that uses the connector (`resolve`) or a webhook that verifies with
 * it (`openAll`, `findByData`); the API shows `maskedData` only.
 */
import type { Connector, CreateConnectorBody, OpenedConnector, UpdateConnectorBody } from '../domain/connector.ts'
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { Definition, WorkflowContent } from '../domain/workflow.ts'
import { badRequest, conflict, ConnectorUnavailableError, type ErrorDetail, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import type { Registry } from '../plugin/registry.ts'
import { type ConnectorRow, connectors } from '../store/connectors.ts'
import { iso } from '../time.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { type Data, maskedData, mergeUpdate, refuseMasks, splitData, validateData } from './connector-data.ts'

export interface ConnectorServiceDeps {
  store: Store
  clock: Clock
  ids: Ids
  registry: Registry
  secretBox: SecretBox
  /** Told after a connector of the organization was created, changed or deleted (secret masks forget theirs). */
  onChange?(organizationId: string): void
}

export function createConnectorService(deps: ConnectorServiceDeps) {
  const { store, clock, ids, registry, secretBox } = deps

  function typeOf(type: string, path = '/type') {
    const def = registry.connector(type)
    if (!def)
      throw badRequest('unknown connector type', [
        { path, message: `no loaded plugin defines the connector type "${type}" (see GET /v1/connector-types)` },
      ])
    return def
  }

  async function secretsOf(row: ConnectorRow): Promise<Record<string, string>> {
    return row.sealed_secrets ? (JSON.parse(await secretBox.open(row.sealed_secrets)) as Record<string, string>) : {}
  }

  async function toConnector(row: ConnectorRow): Promise<Connector> {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      type: row.type,
      provider: row.provider,
      organizationId: row.organization_id,
      maskedData: maskedData(JSON.parse(row.public_data) as Data, await secretsOf(row)),
      createdAt: iso(row.created_at),
      createdBy: row.created_by,
      updatedAt: iso(row.updated_at),
      updatedBy: row.updated_by,
    }
  }

  async function open(row: ConnectorRow): Promise<OpenedConnector> {
    const secrets = await secretsOf(row)
    return {
      id: row.id,
      organizationId: row.organization_id,
      type: row.type,
      data: { ...(JSON.parse(row.public_data) as Data), ...secrets },
      secrets: Object.values(secrets),
    }
  }

  async function stored(type: string, data: Data) {
    const { plain, secrets } = splitData(typeOf(type), data)
    return {
      public_data: JSON.stringify(plain),
      sealed_secrets: Object.keys(secrets).length > 0 ? await secretBox.seal(JSON.stringify(secrets)) : null,
    }
  }

  async function load(caller: Principal, id: string): Promise<ConnectorRow> {
    const row = await connectors.byId(store, caller.organizationId, id)
    if (!row) throw notFound('connector')
    return row
  }

  return guarded(
    'connectors',
    {
      create: ['connector:create'],
      list: ['connector:read'],
      get: ['connector:read'],
      update: ['connector:update'],
      remove: ['connector:delete'],
      // The engine's, for nodes and triggers of the organization: no caller.
      resolve: null,
      openAll: null,
      findByData: null,
      publishGuard: null,
    },
    {
      async create(caller: Principal, body: CreateConnectorBody): Promise<Connector> {
        const type = typeOf(body.type)
        const data = validateData(type, body.data)
        refuseMasks(type, data)
        const at = clock.now()
        const row: ConnectorRow = {
          id: ids.next('con'),
          organization_id: caller.organizationId,
          type: type.type,
          provider: type.provider,
          name: body.name,
          description: body.description ?? '',
          ...(await stored(type.type, data)),
          created_at: at,
          created_by: actorOf(caller),
          updated_at: at,
          updated_by: actorOf(caller),
        }
        await store.write((tx) => connectors.insert(tx, row))
        deps.onChange?.(caller.organizationId)
        return toConnector(row)
      },

      async list(caller: Principal, page: PageRequest, type?: string): Promise<Page<Connector>> {
        const rows = await connectors.list(store, caller.organizationId, page, type)
        const result = toPage(rows, page)
        return { ...result, items: await Promise.all(result.items.map(toConnector)) }
      },

      async get(caller: Principal, id: string): Promise<Connector> {
        return toConnector(await load(caller, id))
      },

      /** Replaces name, description and data (see mergeUpdate for secrets); the type cannot change. */
      async update(caller: Principal, id: string, body: UpdateConnectorBody): Promise<Connector> {
        const row = await load(caller, id)
        if (body.type !== undefined && body.type !== row.type)
          throw badRequest('the type of a connector cannot change', [
            { path: '/type', message: `is ${row.type}; create a new connector for another type` },
          ])
        let data: { public_data: string; sealed_secrets: string | null } = {
          public_data: row.public_data,
          sealed_secrets: row.sealed_secrets,
        }
        if (body.data !== undefined) {
          const type = typeOf(row.type, '/type')
          const merged = mergeUpdate(
            type,
            { plain: JSON.parse(row.public_data) as Data, secrets: await secretsOf(row) },
            body.data,
          )
          data = await stored(row.type, validateData(type, merged))
        }
        const next = {
          ...row,
          ...data,
          name: body.name ?? row.name,
          description: body.description ?? row.description,
          updated_at: clock.now(),
          updated_by: actorOf(caller),
        }
        const changed = await store.write((tx) => connectors.update(tx, next))
        if (changed === 0) throw notFound('connector')
        deps.onChange?.(caller.organizationId)
        return toConnector(next)
      },

      /** Deletes a connector no live workflow names; 409 listing the workflows otherwise. */
      async remove(caller: Principal, id: string): Promise<Connector> {
        const row = await load(caller, id)
        const users = await store.write(async (tx) => {
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
        return toConnector(row)
      },

      /**
       * The engine's connector capability: the connector a node uses, opened. A missing or
       * ambiguous connector is a ConnectorUnavailableError (retrying will not help); other errors
       * (the database) are worth a retry.
       */
      async resolve(
        organizationId: string,
        ref: { type?: string; id?: string } | undefined,
        requiredType: string,
      ): Promise<OpenedConnector> {
        const unavailable = (message: string) => new ConnectorUnavailableError(message)
        if (ref?.type && ref.type !== requiredType)
          throw unavailable(`the node names a ${ref.type} connector, but it needs a ${requiredType} connector`)
        if (ref?.id) {
          const row = await connectors.byId(store, organizationId, ref.id)
          if (!row) throw unavailable(`connector ${ref.id} does not exist in this organization`)
          if (row.type !== requiredType)
            throw unavailable(
              `connector ${ref.id} is a ${row.type} connector; this node needs a ${requiredType} connector`,
            )
          return open(row)
        }
        const rows = await connectors.ofType(store, organizationId, requiredType, 2)
        if (rows.length === 0)
          throw unavailable(
            `this node needs a ${requiredType} connector: create one (POST /v1/connectors) and name it in the node's connector.id`,
          )
        if (rows.length > 1)
          throw unavailable(
            `the organization has several ${requiredType} connectors: name one in the node's connector.id`,
          )
        return open(rows[0])
      },

      /** An organization's connectors of a type, opened (a webhook verifying with each in turn). */
      async openAll(organizationId: string, type: string): Promise<OpenedConnector[]> {
        return Promise.all((await connectors.ofType(store, organizationId, type)).map(open))
      },

      /** Connectors of a type, in any organization, whose plain data has these field values (installation-wide routing). */
      async findByData(type: string, fields: Readonly<Record<string, string>>): Promise<OpenedConnector[]> {
        const rows = (await connectors.withPublicData(store, store.dialect, type, fields)).filter((row) => {
          // The database compared text; a field stored as another JSON type must not match a string.
          const plain = JSON.parse(row.public_data) as Data
          return Object.entries(fields).every(([k, v]) => plain[k] === v)
        })
        return Promise.all(rows.map(open))
      },

      /** Publish guard: every connector a node names exists with the right type; an action that needs one can find it. */
      async publishGuard(content: WorkflowContent, organizationId: string, tx: SqlExecutor): Promise<ErrorDetail[]> {
        return checkReferences(registry, content.definition, organizationId, tx)
      },
    },
  )
}

export type ConnectorService = ReturnType<typeof createConnectorService>

async function liveUsers(tx: SqlExecutor, organizationId: string, connectorId: string): Promise<string[]> {
  const rows = await connectors.liveVersionsMentioning(tx, organizationId, connectorId)
  return rows
    .filter((r) => {
      const content = JSON.parse(r.content) as WorkflowContent
      return Object.values(content.definition?.nodes ?? {}).some((n) => n.connector?.id === connectorId)
    })
    .map((r) => r.id)
}

async function checkReferences(
  registry: Registry,
  definition: Definition,
  organizationId: string,
  tx: SqlExecutor,
): Promise<ErrorDetail[]> {
  const errors: ErrorDetail[] = []
  const triggerIds = new Set(definition.triggerNodeIds ?? ['root'])
  for (const [id, node] of Object.entries(definition.nodes ?? {})) {
    const isTrigger = triggerIds.has(id)
    const needed = (isTrigger ? registry.trigger(node.type)?.connector : registry.action(node.type)?.connector)?.type
    const at = `/definition/nodes/${id}/connector`
    if (node.connector?.id) {
      const row = await connectors.byId(tx, organizationId, node.connector.id)
      if (!row)
        errors.push({ path: `${at}/id`, message: `connector ${node.connector.id} does not exist in this organization` })
      else if (needed && row.type !== needed)
        errors.push({
          path: `${at}/id`,
          message: `connector ${node.connector.id} is a ${row.type} connector; "${node.type}" needs a ${needed} connector`,
        })
    } else if (needed && !isTrigger) {
      const rows = await connectors.ofType(tx, organizationId, needed, 2)
      if (rows.length === 0)
        errors.push({
          path: at,
          message: `"${node.type}" needs a ${needed} connector; create one (POST /v1/connectors) and name it in connector.id`,
        })
      if (rows.length > 1)
        errors.push({
          path: `${at}/id`,
          message: `the organization has several ${needed} connectors; name one in connector.id`,
        })
    }
  }
  return errors
}
