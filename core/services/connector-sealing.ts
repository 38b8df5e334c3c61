/**
 * A connector row in and out of the secret box: secret fields sealed on the way in, opened for
 * the engine, masked for the API.
 */
import type { Connector, OpenedConnector } from '../domain/connector.ts'
import { badRequest } from '../errors.ts'
import type { ConnectorRow } from '../store/connectors.ts'
import { iso } from '../time.ts'
import { type Data, maskedData, splitData } from './connector-data.ts'
import type { ConnectorServiceDeps } from './connectors.ts'

/** The loaded plugins' definition of a connector type; 400 at `path` when no plugin defines it. */
export function connectorType(deps: Pick<ConnectorServiceDeps, 'registry'>, type: string, path = '/type') {
  const def = deps.registry.connector(type)
  if (!def)
    throw badRequest('unknown connector type', [
      { path, message: `no loaded plugin defines the connector type "${type}" (see GET /v1/connector-types)` },
    ])
  return def
}

/** The connector's secret fields, opened. */
export async function secretsOf(
  deps: Pick<ConnectorServiceDeps, 'secretBox'>,
  row: ConnectorRow,
): Promise<Record<string, string>> {
  return row.sealed_secrets ? (JSON.parse(await deps.secretBox.open(row.sealed_secrets)) as Record<string, string>) : {}
}

/** The connector as the API shows it: secret fields masked. */
export async function toConnector(
  deps: Pick<ConnectorServiceDeps, 'secretBox' | 'oauth2'>,
  row: ConnectorRow,
): Promise<Connector> {
  const oauth2 = await deps.oauth2?.statusOf(row)
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    provider: row.provider,
    organizationId: row.organization_id,
    maskedData: maskedData(JSON.parse(row.public_data) as Data, await secretsOf(deps, row)),
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
    updatedAt: iso(row.updated_at),
    updatedBy: row.updated_by,
    ...(oauth2 ? { oauth2 } : {}),
  }
}

/** The connector as a node uses it: plain and secret fields together. */
export async function openConnector(
  deps: Pick<ConnectorServiceDeps, 'secretBox'>,
  row: ConnectorRow,
): Promise<OpenedConnector> {
  const secrets = await secretsOf(deps, row)
  return {
    id: row.id,
    organizationId: row.organization_id,
    type: row.type,
    data: { ...(JSON.parse(row.public_data) as Data), ...secrets },
    secrets: Object.values(secrets),
  }
}

/** The columns that hold a connector's data: plain fields as JSON, secret fields sealed. */
export async function sealedColumns(
  deps: Pick<ConnectorServiceDeps, 'registry' | 'secretBox'>,
  type: string,
  data: Data,
): Promise<{ public_data: string; sealed_secrets: string | null }> {
  const { plain, secrets } = splitData(connectorType(deps, type), data)
  return {
    public_data: JSON.stringify(plain),
    sealed_secrets: Object.keys(secrets).length > 0 ? await deps.secretBox.seal(JSON.stringify(secrets)) : null,
  }
}
