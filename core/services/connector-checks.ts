/**
 * Connector checks: the connector type's `test`, run through the plugin-calls port after a
 * connector is created or changed (its answer beside the saved connector; a failing check never
 * undoes the save) and on demand. A check that throws or runs out of time answers
 * `{ ok: false, message }`.
 */
import type { Connector } from '../domain/connector.ts'
import type { ConnectorCheck } from '../domain/connector-check.ts'
import { errorMessage, notFound } from '../errors.ts'
import { connectors } from '../store/connectors.ts'
import type { ConnectorServiceDeps } from './connectors.ts'
import { openConnector } from './connector-sealing.ts'

/** The check of a stored connector; null when its type declares none (or the process runs no checks). */
export async function checkConnector(
  deps: ConnectorServiceDeps,
  organizationId: string,
  id: string,
): Promise<ConnectorCheck | null> {
  const row = await connectors.byId(deps.store, organizationId, id)
  if (!row) throw notFound('connector')
  const definition = deps.registry.connector(row.type)
  if (!definition?.test || !deps.checks) return null
  const opened = await openConnector(deps, row)
  let data = opened.data
  // An OAuth2 connector's check gets a current access token; one it cannot get fails the check.
  if (deps.oauth2)
    try {
      data = (await deps.oauth2.open(row, opened)).data
    } catch (error) {
      return { ok: false, message: errorMessage(error) }
    }
  return deps.checks.testConnector({ organizationId, connectorId: id, definition, data })
}

/** A connector just saved, with its check's answer when its type has one. */
export async function withCheck<C extends Connector>(
  deps: ConnectorServiceDeps,
  saved: C,
): Promise<C & { test?: ConnectorCheck }> {
  const test = await checkConnector(deps, saved.organizationId, saved.id)
  return test ? { ...saved, test } : saved
}
