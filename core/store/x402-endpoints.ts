/** Rows of `x402_endpoints`: paid HTTP endpoints an organization imported, with their statistics. */
import type { SqlExecutor, SqlValue } from '../ports/store.ts'

export interface EndpointRow {
  id: string
  organization_id: string
  name: string
  description: string
  category: string
  base_url: string
  method: string
  mime_type: string
  source: 'user_import' | 'provider_bazaar'
  /** JSON of the record's object fields (params, defaults, examples, schema, tags, useCases). */
  details: string
  input_summary: string
  output_summary: string
  price: string
  max_allowed_price: string
  network: string
  pay_to: string
  token_address: string
  token_symbol: string
  token_decimals: number
  spent_by_token: string
  total_calls: number
  success_count: number
  failure_count: number
  avg_response_ms: number
  last_called_at: number | null
  last_error: string | null
  last_error_at: number | null
  created_at: number
  updated_at: number
}

export const endpoints = {
  async insert(db: SqlExecutor, r: EndpointRow) {
    const keys = Object.keys(r) as (keyof EndpointRow)[]
    await db.run(
      `INSERT INTO x402_endpoints (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`,
      keys.map((k) => r[k] as SqlValue),
    )
  },
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<EndpointRow>('SELECT * FROM x402_endpoints WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  byTarget: (db: SqlExecutor, organizationId: string, baseUrl: string, method: string) =>
    db.get<EndpointRow>('SELECT * FROM x402_endpoints WHERE organization_id = $1 AND base_url = $2 AND method = $3', [
      organizationId,
      baseUrl,
      method,
    ]),
  list: (db: SqlExecutor, organizationId: string, limit: number, offset: number) =>
    db.all<EndpointRow>(
      'SELECT * FROM x402_endpoints WHERE organization_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3',
      [organizationId, limit, offset],
    ),
  update: (db: SqlExecutor, id: string, patch: Partial<EndpointRow>) => {
    const keys = Object.keys(patch) as (keyof EndpointRow)[]
    return db.run(
      `UPDATE x402_endpoints SET ${keys.map((k, i) => `${k} = $${i + 1}`).join(', ')} WHERE id = $${keys.length + 1}`,
      [...keys.map((k) => patch[k] as SqlValue), id],
    )
  },
  remove: (db: SqlExecutor, organizationId: string, id: string) =>
    db.run('DELETE FROM x402_endpoints WHERE organization_id = $1 AND id = $2', [organizationId, id]),
}

/** Resources a Bazaar listed for an organization (POST /v1/x402-endpoints/discover). */
export const discovered = {
  async remember(
    db: SqlExecutor,
    organizationId: string,
    bazaarUrl: string,
    resourceUrls: readonly string[],
    at: number,
  ) {
    for (const url of resourceUrls) {
      await db.run(
        `INSERT INTO x402_discovered (organization_id, resource_url, bazaar_url, listed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id, resource_url) DO UPDATE SET bazaar_url = excluded.bazaar_url, listed_at = excluded.listed_at`,
        [organizationId, url, bazaarUrl, at],
      )
    }
  },
  has: async (db: SqlExecutor, organizationId: string, resourceUrl: string) =>
    (await db.get<{ one: number }>(
      'SELECT 1 AS one FROM x402_discovered WHERE organization_id = $1 AND resource_url = $2',
      [organizationId, resourceUrl],
    )) !== undefined,
}
