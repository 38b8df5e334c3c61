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
    await db.run(`INSERT INTO x402_endpoints (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`, keys.map((k) => r[k] as SqlValue))
  },
  byId: (db: SqlExecutor, organizationId: string, id: string) => db.get<EndpointRow>('SELECT * FROM x402_endpoints WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  byTarget: (db: SqlExecutor, organizationId: string, baseUrl: string, method: string) =>
    db.get<EndpointRow>('SELECT * FROM x402_endpoints WHERE organization_id = $1 AND base_url = $2 AND method = $3', [organizationId, baseUrl, method]),
  list: (db: SqlExecutor, organizationId: string, limit: number, offset: number) =>
    db.all<EndpointRow>('SELECT * FROM x402_endpoints WHERE organization_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3', [organizationId, limit, offset]),
  update: (db: SqlExecutor, id: string, patch: Partial<EndpointRow>) => {
    const keys = Object.keys(patch) as (keyof EndpointRow)[]
    return db.run(`UPDATE x402_endpoints SET ${keys.map((k, i) => `${k} = $${i + 1}`).join(', ')} WHERE id = $${keys.length + 1}`, [...keys.map((k) => patch[k] as SqlValue), id])
  },
  remove: (db: SqlExecutor, organizationId: string, id: string) => db.run('DELETE FROM x402_endpoints WHERE organization_id = $1 AND id = $2', [organizationId, id]),
}
