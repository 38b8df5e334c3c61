/**
 * The engine's side of connectors: the connector a node uses, those a webhook verifies with, and
 * the publish guard that checks a workflow's connector references before it goes live. None of
 * these takes a caller: they serve nodes and triggers of an organization.
 */
import type { OpenedConnector } from '../domain/connector.ts'
import type { Definition } from '../domain/workflow.ts'
import { ConnectorUnavailableError, type ErrorDetail } from '../errors.ts'
import type { Registry } from '../plugin/registry.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { type ConnectorRow, connectors } from '../store/connectors.ts'
import type { Data } from './connector-data.ts'
import { openConnector } from './connector-sealing.ts'
import type { ConnectorServiceDeps } from './connectors.ts'

/**
 * The engine's connector capability: the connector a node uses, opened. A missing or
 * ambiguous connector is a ConnectorUnavailableError (retrying will not help); other errors
 * (the database) are worth a retry.
 */
export async function resolveConnector(
  deps: ConnectorServiceDeps,
  organizationId: string,
  ref: { type?: string; id?: string } | undefined,
  requiredType: string,
): Promise<OpenedConnector> {
  const unavailable = (message: string) => new ConnectorUnavailableError(message)
  if (ref?.type && ref.type !== requiredType)
    throw unavailable(`the node names a ${ref.type} connector, but it needs a ${requiredType} connector`)
  if (ref?.id) {
    const row = await connectors.byId(deps.store, organizationId, ref.id)
    if (!row) throw unavailable(`connector ${ref.id} does not exist in this organization`)
    if (row.type !== requiredType)
      throw unavailable(`connector ${ref.id} is a ${row.type} connector; this node needs a ${requiredType} connector`)
    return openForNode(deps, row)
  }
  const rows = await connectors.ofType(deps.store, organizationId, requiredType, 2)
  if (rows.length === 0)
    throw unavailable(
      `this node needs a ${requiredType} connector: create one (POST /v1/connectors) and name it in the node's connector.id`,
    )
  if (rows.length > 1)
    throw unavailable(`the organization has several ${requiredType} connectors: name one in the node's connector.id`)
  return openForNode(deps, rows[0])
}

/** The connector opened for a node: an OAuth2 one with a current access token. */
async function openForNode(deps: ConnectorServiceDeps, row: ConnectorRow): Promise<OpenedConnector> {
  const opened = await openConnector(deps, row)
  return deps.oauth2 ? deps.oauth2.open(row, opened) : opened
}

/** Connectors of a type, in any organization, whose plain data has these field values (installation-wide routing). */
export async function findByData(
  deps: ConnectorServiceDeps,
  type: string,
  fields: Readonly<Record<string, string>>,
): Promise<OpenedConnector[]> {
  const rows = (await connectors.withPublicData(deps.store, deps.store.dialect, type, fields)).filter((row) => {
    // The database compared text; a field stored as another JSON type must not match a string.
    const plain = JSON.parse(row.public_data) as Data
    return Object.entries(fields).every(([k, v]) => plain[k] === v)
  })
  return Promise.all(rows.map((row) => openConnector(deps, row)))
}

/** Publish guard: every connector a node names exists with the right type; an action that needs one can find it. */
export async function checkReferences(
  registry: Registry,
  definition: Definition,
  organizationId: string,
  tx: SqlExecutor,
): Promise<ErrorDetail[]> {
  const errors: ErrorDetail[] = []
  const triggerIds = new Set(definition.triggerNodeIds ?? ['root'])
  for (const [id, node] of Object.entries(definition.nodes ?? {})) {
    const isTrigger = triggerIds.has(id)
    const requirement = (
      isTrigger ? registry.trigger(node.type, node.typeVersion) : registry.action(node.type, node.typeVersion)
    )?.connector
    const needed = requirement?.type
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
    } else if (needed && !isTrigger && !requirement?.optional) {
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
