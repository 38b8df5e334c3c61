/**
 * Versioned schema migrations, in portable SQL: TEXT, BIGINT (milliseconds), INTEGER flags,
 * JSON as TEXT. A migration is never edited once released; changes come as a new version.
 */
import type { Migration } from '../ports/store.ts'

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'organizations, service accounts, api keys',
    up: [
      `CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL
      )`,
      `CREATE TABLE service_accounts (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        permissions TEXT NOT NULL,
        status TEXT NOT NULL,
        disabled_at BIGINT,
        deleted_at BIGINT,
        created_at BIGINT NOT NULL,
        created_by TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      'CREATE INDEX service_accounts_org ON service_accounts (organization_id, id)',
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        key_prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        scope TEXT NOT NULL,
        role TEXT,
        user_id TEXT,
        service_account_id TEXT REFERENCES service_accounts(id),
        created_at BIGINT NOT NULL,
        created_by TEXT NOT NULL,
        expires_at BIGINT,
        last_used_at BIGINT,
        last_used_ip TEXT,
        last_used_user_agent TEXT,
        revoked_at BIGINT
      )`,
      'CREATE INDEX api_keys_org ON api_keys (organization_id, id)',
      'CREATE INDEX api_keys_service_account ON api_keys (service_account_id)',
    ],
  },
]
