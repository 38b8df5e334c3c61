/**
 * Versions 19 to 26: run retention and installation settings, the situation universe, people and
 * their sessions, templates, tags and apps, the builder and contract chats, and the trace context of runs.
 */
import type { Migration } from '../../ports/store.ts'

export const peopleTemplatesAndChat: readonly Migration[] = [
  {
    version: 19,
    name: 'operations: run retention, rolled-up counts of pruned runs, installation settings',
    up: [
      // The organization's run retention in milliseconds (0 keeps for ever); NULL follows AUTOMATON_RUN_RETENTION.
      'ALTER TABLE organizations ADD COLUMN run_retention_ms BIGINT',
      // Pruned runs, counted per UTC day they started and finished: status counts and the
      // failure rate add these to the runs still stored, so pruning changes no figure.
      `CREATE TABLE run_rollups (
        organization_id TEXT NOT NULL,
        workflow_id TEXT NOT NULL,
        status TEXT NOT NULL,
        started_day BIGINT NOT NULL,
        finished_day BIGINT NOT NULL,
        runs BIGINT NOT NULL,
        PRIMARY KEY (organization_id, workflow_id, status, started_day, finished_day)
      )`,
      // Stored webhook events are pruned by age within their organization.
      'CREATE INDEX webhook_events_received ON webhook_events (organization_id, received_at)',
      // Facts about the installation as a whole, such as which master key seals new secrets.
      `CREATE TABLE installation_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 25,
    name: 'the situation universe: tickers, their name words, a full-text index, the load state',
    up: (() => {
      const common = (collate: string) => [
        `CREATE TABLE universe_tickers (
          symbol TEXT PRIMARY KEY,
          norm TEXT${collate} NOT NULL UNIQUE,
          name TEXT NOT NULL,
          name_lower TEXT NOT NULL,
          -- What full-text search looks in: the name and the symbol, lower case.
          search_text TEXT NOT NULL,
          exchange TEXT NOT NULL,
          type TEXT NOT NULL,
          rank INTEGER NOT NULL
        )`,
        'CREATE INDEX universe_tickers_rank ON universe_tickers (rank, symbol)',
        'CREATE INDEX universe_tickers_type_rank ON universe_tickers (type, rank, symbol)',
        // Name words for word-prefix search: a range scan on (word) finds every name with a word starting so.
        `CREATE TABLE universe_words (
          word TEXT${collate} NOT NULL,
          symbol TEXT NOT NULL,
          rank INTEGER NOT NULL,
          -- The whole name again, so that a several-word search filters here before any join.
          name_lower TEXT NOT NULL,
          PRIMARY KEY (word, symbol)
        )`,
        // A word prefix's best-ranked names straight from the index, however many names share it.
        'CREATE INDEX universe_words_rank ON universe_words (word, rank, symbol, name_lower)',
        `CREATE TABLE universe_state (
          id INTEGER PRIMARY KEY,
          status TEXT NOT NULL,
          count INTEGER NOT NULL,
          source TEXT NOT NULL,
          loaded_at BIGINT NOT NULL
        )`,
      ]
      return {
        // Byte order for the range scans on symbols and words (SQLite compares bytes already).
        sqlite: [
          ...common(''),
          "CREATE VIRTUAL TABLE universe_fts USING fts5(search_text, symbol UNINDEXED, tokenize = 'trigram')",
        ],
        // The trigram index of full-text search needs the pg_trgm extension, which only some
        // database users may create: the universe service adds it at start when it can.
        postgres: common(' COLLATE "C"'),
      }
    })(),
  },
  {
    version: 21,
    name: 'people: passwords, sign-in sessions, invitations, interests',
    up: [
      'ALTER TABLE users ADD COLUMN password_hash TEXT',
      'ALTER TABLE users ADD COLUMN password_changed_at BIGINT',
      'ALTER TABLE users ADD COLUMN interests_enabled INTEGER NOT NULL DEFAULT 0',
      "ALTER TABLE users ADD COLUMN interest_tags TEXT NOT NULL DEFAULT '[]'",
      // Emails are stored lower case; this keeps a mixed-case insert from slipping past the UNIQUE.
      'CREATE UNIQUE INDEX users_email_lower ON users (lower(email))',
      // A session is found by the SHA-256 of its token; the token itself is never stored.
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL REFERENCES users(id),
        created_at BIGINT NOT NULL,
        last_seen_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        revoked_at BIGINT,
        ip TEXT,
        user_agent TEXT
      )`,
      'CREATE INDEX sessions_user ON sessions (user_id, revoked_at)',
      `CREATE TABLE invitations (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        email TEXT NOT NULL,
        role TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        invited_by TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        accepted_at BIGINT,
        accepted_by TEXT,
        revoked_at BIGINT
      )`,
      'CREATE INDEX invitations_org ON invitations (organization_id, created_at)',
    ],
  },
  {
    version: 22,
    name: 'templates, tags, apps, and the prop values of forked workflows',
    up: (() => {
      const common = [
        `CREATE TABLE tags (
          id TEXT PRIMARY KEY,
          slug TEXT NOT NULL UNIQUE,
          name TEXT NOT NULL,
          description TEXT NOT NULL DEFAULT '',
          image_url TEXT NOT NULL DEFAULT '',
          categories TEXT NOT NULL DEFAULT '[]',
          weight INTEGER NOT NULL DEFAULT 0,
          -- What search looks in: name and description, lower case.
          search_text TEXT NOT NULL,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL
        )`,
        'CREATE INDEX tags_weight ON tags (weight DESC, name)',
        `CREATE TABLE templates (
          id TEXT PRIMARY KEY,
          organization_id TEXT NOT NULL REFERENCES organizations(id),
          slug TEXT NOT NULL,
          visibility TEXT NOT NULL,
          moderation_status TEXT NOT NULL,
          rejection_reason TEXT,
          submitted_at BIGINT,
          reviewed_at BIGINT,
          reviewed_by TEXT,
          -- The version others see: the last approved one (public templates only).
          public_version INTEGER,
          current_version INTEGER NOT NULL,
          is_promoted INTEGER NOT NULL DEFAULT 0,
          promoted_at BIGINT,
          promoted_by TEXT,
          promoted_order INTEGER,
          fork_count INTEGER NOT NULL DEFAULT 0,
          archived INTEGER NOT NULL DEFAULT 0,
          source_workflow_id TEXT,
          generated_app_id TEXT,
          generated_app_version_id TEXT,
          created_at BIGINT NOT NULL,
          created_by TEXT NOT NULL,
          updated_at BIGINT NOT NULL,
          updated_by TEXT NOT NULL,
          UNIQUE (organization_id, slug)
        )`,
        'CREATE INDEX templates_public ON templates (visibility, archived, public_version)',
        `CREATE TABLE template_versions (
          template_id TEXT NOT NULL REFERENCES templates(id),
          version INTEGER NOT NULL,
          content TEXT NOT NULL,
          search_text TEXT NOT NULL,
          created_at BIGINT NOT NULL,
          created_by TEXT NOT NULL,
          PRIMARY KEY (template_id, version)
        )`,
        // The tags of each version: listings filter and count by the version a caller sees.
        `CREATE TABLE template_tags (
          template_id TEXT NOT NULL,
          version INTEGER NOT NULL,
          slug TEXT NOT NULL,
          PRIMARY KEY (template_id, version, slug)
        )`,
        'CREATE INDEX template_tags_slug ON template_tags (slug, template_id, version)',
        `CREATE TABLE template_moderation (
          id TEXT PRIMARY KEY,
          template_id TEXT NOT NULL,
          version INTEGER NOT NULL,
          decision TEXT NOT NULL,
          reason TEXT,
          decided_by TEXT NOT NULL,
          decided_at BIGINT NOT NULL
        )`,
        'CREATE INDEX template_moderation_template ON template_moderation (template_id, decided_at)',
        `CREATE TABLE apps (
          id TEXT PRIMARY KEY,
          organization_id TEXT NOT NULL REFERENCES organizations(id),
          name TEXT NOT NULL,
          latest_version INTEGER NOT NULL,
          created_at BIGINT NOT NULL,
          created_by TEXT NOT NULL,
          updated_at BIGINT NOT NULL,
          updated_by TEXT NOT NULL
        )`,
        `CREATE TABLE app_versions (
          id TEXT PRIMARY KEY,
          app_id TEXT NOT NULL REFERENCES apps(id),
          version INTEGER NOT NULL,
          files TEXT NOT NULL,
          size INTEGER NOT NULL,
          created_at BIGINT NOT NULL,
          created_by TEXT NOT NULL,
          UNIQUE (app_id, version)
        )`,
        // A forked workflow's prop values: plain ones as JSON, sensitive ones sealed.
        "ALTER TABLE workflows ADD COLUMN prop_values TEXT NOT NULL DEFAULT '{}'",
        'ALTER TABLE workflows ADD COLUMN sealed_props TEXT',
        // The app a workflow's public widget page serves (and the version pinned, if any).
        'ALTER TABLE workflows ADD COLUMN app_id TEXT',
        'ALTER TABLE workflows ADD COLUMN app_version INTEGER',
      ]
      return {
        // Full-text search of template versions: a trigram index whose rowid is the version's.
        sqlite: [...common, "CREATE VIRTUAL TABLE template_search USING fts5(search_text, tokenize = 'trigram')"],
        // On Postgres the templates service adds a pg_trgm index at start when it can.
        postgres: common,
      }
    })(),
  },
  {
    version: 23,
    name: 'chat messages of the builder and contract chats, and contract projects',
    up: [
      `CREATE TABLE chat_messages (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        -- 'builder' or 'contract'
        chat TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        workflow_id TEXT,
        session_id TEXT,
        turn_id TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        agent_version TEXT NOT NULL,
        sender_user_id TEXT,
        image_urls TEXT NOT NULL DEFAULT '[]',
        structured_payload TEXT,
        tokens_used INTEGER NOT NULL DEFAULT 0,
        linked_run_id TEXT,
        created_at BIGINT NOT NULL
      )`,
      // History reads a page by keyset, newest first, by conversation, workflow or session.
      'CREATE INDEX chat_messages_conversation ON chat_messages (organization_id, conversation_id, created_at, id)',
      'CREATE INDEX chat_messages_workflow ON chat_messages (organization_id, workflow_id, created_at, id)',
      'CREATE INDEX chat_messages_session ON chat_messages (organization_id, session_id, created_at, id)',
      `CREATE TABLE contracts (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        name TEXT NOT NULL,
        status TEXT NOT NULL,
        plan TEXT,
        source TEXT,
        abi TEXT,
        bytecode TEXT,
        compile_error TEXT,
        created_by TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      'CREATE INDEX contracts_org ON contracts (organization_id, created_at)',
    ],
  },
  {
    version: 26,
    name: 'trace context of runs',
    up: [
      // The run's W3C span context (its spans' ids) and the caller's span it continues.
      'ALTER TABLE runs ADD COLUMN traceparent TEXT',
      'ALTER TABLE runs ADD COLUMN trace_caller TEXT',
    ],
  },
]
