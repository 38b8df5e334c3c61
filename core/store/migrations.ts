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
  {
    version: 2,
    name: 'members, workflows, versions, runs, events, timers',
    up: {
      // The journal's global id: SQLite's rowid, a sequence in Postgres.
      sqlite: [...membersAndWorkflows(), eventsTable('INTEGER PRIMARY KEY'), ...runsAndEvents()],
      postgres: [...membersAndWorkflows(), eventsTable('BIGSERIAL PRIMARY KEY'), ...runsAndEvents()],
    },
  },
  {
    version: 3,
    name: 'workers',
    up: [
      `CREATE TABLE workers (
        id TEXT PRIMARY KEY,
        role TEXT NOT NULL,
        host TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        heartbeat_at BIGINT NOT NULL
      )`,
      'CREATE INDEX runs_owner ON runs (owner)',
    ],
  },
  {
    version: 4,
    name: 'execution hooks: endpoints and the delivery outbox',
    up: executionHooks(),
  },
  {
    version: 5,
    name: 'connectors',
    up: [
      // Non-secret fields of the data are plain JSON (routing reads them); secret fields are one
      // sealed JSON object. maskedData is computed on output and never stored.
      `CREATE TABLE connectors (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        type TEXT NOT NULL,
        provider TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        public_data TEXT NOT NULL,
        sealed_secrets TEXT,
        created_at BIGINT NOT NULL,
        created_by TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        updated_by TEXT NOT NULL
      )`,
      'CREATE INDEX connectors_org ON connectors (organization_id, id)',
      'CREATE INDEX connectors_type ON connectors (type, organization_id)',
    ],
  },
  {
    version: 6,
    name: 'schedules',
    up: [
      // One row per trigger node of a live version that fires on a schedule (cronjob, schedule).
      // next_fire_at is the tick to fire next; claiming a tick moves it with one conditional UPDATE.
      `CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        workflow_id TEXT NOT NULL,
        trigger_node_id TEXT NOT NULL,
        trigger_type TEXT NOT NULL,
        config TEXT NOT NULL,
        version INTEGER NOT NULL,
        active INTEGER NOT NULL,
        next_fire_at BIGINT,
        last_fired_at BIGINT,
        last_run_id TEXT,
        last_outcome TEXT,
        skipped_ticks BIGINT NOT NULL DEFAULT 0,
        last_skipped_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      'CREATE UNIQUE INDEX schedules_trigger ON schedules (workflow_id, trigger_node_id)',
      'CREATE INDEX schedules_due ON schedules (next_fire_at) WHERE active = 1',
    ],
  },
  {
    version: 7,
    name: 'integration webhooks',
    up: [
      // The organization's webhook secret (the event source's ?secret=), sealed: it is shown again on request.
      'ALTER TABLE organizations ADD COLUMN webhook_secret TEXT',
      'ALTER TABLE organizations ADD COLUMN webhook_secret_updated_at BIGINT',
      // One row per trigger node of a live (active or paused) version: an event finds the
      // workflows it may start by (organization, trigger type) without reading definitions.
      `CREATE TABLE live_triggers (
        workflow_id TEXT NOT NULL,
        trigger_node_id TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        trigger_type TEXT NOT NULL,
        config TEXT NOT NULL,
        connector_id TEXT,
        version INTEGER NOT NULL,
        active INTEGER NOT NULL,
        PRIMARY KEY (workflow_id, trigger_node_id)
      )`,
      'CREATE INDEX live_triggers_type ON live_triggers (organization_id, trigger_type) WHERE active = 1',
      // Every event an integration webhook received, with what it did. dedup_key is the
      // provider's event id (NULL for replays): the unique index makes a delivery count once,
      // also when two processes receive it at the same moment.
      `CREATE TABLE webhook_events (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        source TEXT NOT NULL,
        provider_event_id TEXT NOT NULL,
        dedup_key TEXT,
        trigger_type TEXT NOT NULL,
        connector_id TEXT,
        target TEXT,
        body TEXT NOT NULL,
        headers TEXT NOT NULL,
        received_at BIGINT NOT NULL,
        action TEXT NOT NULL,
        reason TEXT,
        problems TEXT,
        run_ids TEXT NOT NULL,
        workflow_ids TEXT NOT NULL,
        replay_of TEXT
      )`,
      'CREATE UNIQUE INDEX webhook_events_dedup ON webhook_events (organization_id, source, dedup_key, trigger_type)',
      'CREATE INDEX webhook_events_org ON webhook_events (organization_id, id)',
    ],
  },
  {
    version: 8,
    name: 'run indexes for the heartbeat sweep and status counts',
    up: [
      // The heartbeat sweep asks for running runs without a live owner: by owner, it reads a few
      // index entries instead of every running run (a backlog of tens of thousands under a burst).
      "CREATE INDEX runs_running_owner ON runs (owner, updated_at) WHERE status = 'running'",
      // Status counts (per organization or workflow, optionally since a time) read this index
      // alone instead of every run row: 76 → 4 ms at 41,500 runs of one workflow.
      'CREATE INDEX runs_status_counts ON runs (organization_id, workflow_id, status, started_at)',
    ],
  },
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
  {
    version: 27,
    name: 'wallets and contract deployments',
    up: [
      // An organization's EVM keys, sealed with the master key; only the address is ever answered.
      `CREATE TABLE wallets (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL,
        address TEXT NOT NULL,
        sealed_key TEXT NOT NULL,
        is_default INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        created_by TEXT NOT NULL
      )`,
      'CREATE INDEX wallets_org ON wallets (organization_id, created_at)',
      'CREATE UNIQUE INDEX wallets_address ON wallets (organization_id, address)',
      `CREATE TABLE contract_deployments (
        id TEXT PRIMARY KEY,
        contract_id TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        chain_id INTEGER NOT NULL,
        address TEXT NOT NULL,
        transaction_hash TEXT NOT NULL,
        wallet_id TEXT NOT NULL,
        deployed_at BIGINT NOT NULL,
        deployed_by TEXT NOT NULL
      )`,
      'CREATE INDEX contract_deployments_contract ON contract_deployments (contract_id, deployed_at)',
    ],
  },
  {
    version: 28,
    name: 'x402 payments',
    up: [
      // One row per payment authorization: its nonce is claimed once per (chain, token, payer),
      // so a replayed payment never starts a second run nor settles twice.
      `CREATE TABLE x402_payments (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        workflow_id TEXT NOT NULL,
        chain_id INTEGER NOT NULL,
        asset TEXT NOT NULL,
        payer TEXT NOT NULL,
        nonce TEXT NOT NULL,
        amount TEXT NOT NULL,
        pay_to TEXT NOT NULL,
        status TEXT NOT NULL,
        transaction_hash TEXT,
        run_id TEXT,
        event_id TEXT,
        error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      'CREATE UNIQUE INDEX x402_payments_nonce ON x402_payments (chain_id, asset, payer, nonce)',
      'CREATE INDEX x402_payments_workflow ON x402_payments (workflow_id, created_at)',
    ],
  },
  {
    version: 29,
    name: 'imported x402 endpoints',
    up: [
      `CREATE TABLE x402_endpoints (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        category TEXT NOT NULL,
        base_url TEXT NOT NULL,
        method TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        source TEXT NOT NULL,
        details TEXT NOT NULL,
        input_summary TEXT NOT NULL,
        output_summary TEXT NOT NULL,
        price TEXT NOT NULL,
        max_allowed_price TEXT NOT NULL,
        network TEXT NOT NULL,
        pay_to TEXT NOT NULL,
        token_address TEXT NOT NULL,
        token_symbol TEXT NOT NULL,
        token_decimals INTEGER NOT NULL,
        spent_by_token TEXT NOT NULL,
        total_calls INTEGER NOT NULL,
        success_count INTEGER NOT NULL,
        failure_count INTEGER NOT NULL,
        avg_response_ms INTEGER NOT NULL,
        last_called_at BIGINT,
        last_error TEXT,
        last_error_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      // One import of a resource and method per organization (a second is 409, and pays nothing).
      'CREATE UNIQUE INDEX x402_endpoints_target ON x402_endpoints (organization_id, base_url, method)',
    ],
  },
  {
    version: 24,
    name: 'ai credit ledger',
    up: [
      // The balance is the running total of the append-only entries, kept so a reservation is one
      // conditional UPDATE that can never take it below zero, in either dialect.
      `CREATE TABLE ai_credit_balances (
        organization_id TEXT PRIMARY KEY,
        balance BIGINT NOT NULL
      )`,
      `CREATE TABLE ai_credit_entries (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        amount BIGINT NOT NULL,
        turn_id TEXT,
        note TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL
      )`,
      'CREATE INDEX ai_credit_entries_org ON ai_credit_entries (organization_id, created_at, id)',
      // One reservation, one settlement and one refund per turn: a retried call never charges twice.
      'CREATE UNIQUE INDEX ai_credit_entries_turn ON ai_credit_entries (turn_id, kind)',
    ],
  },
  {
    version: 30,
    name: 'x402 settlement state',
    up: [
      // What a settlement needs to finish after a crash or a timeout: the signed authorization,
      // the relayer's signed transaction (its hash is stored before it is broadcast), and the
      // trigger event of the run the payment pays for.
      'ALTER TABLE x402_payments ADD COLUMN authorization_payload TEXT',
      'ALTER TABLE x402_payments ADD COLUMN valid_before BIGINT',
      'ALTER TABLE x402_payments ADD COLUMN raw_transaction TEXT',
      'ALTER TABLE x402_payments ADD COLUMN trigger_event TEXT',
      'CREATE INDEX x402_payments_open ON x402_payments (status, updated_at)',
    ],
  },
  {
    version: 31,
    name: 'x402 resources discovered in a Bazaar',
    up: [
      // What POST /v1/x402-endpoints/discover listed for an organization: importing one of them
      // records the endpoint's source as provider_bazaar.
      `CREATE TABLE x402_discovered (
        organization_id TEXT NOT NULL,
        resource_url TEXT NOT NULL,
        bazaar_url TEXT NOT NULL,
        listed_at BIGINT NOT NULL,
        PRIMARY KEY (organization_id, resource_url)
      )`,
    ],
  },
  {
    version: 32,
    name: 'agent runs',
    up: [
      `CREATE TABLE agent_conversations (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        agent_type TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      // One engine run per agent run, with the worker session minted for it (sealed, revoked when the run ends).
      `CREATE TABLE agent_runs (
        run_id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        agent_type TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        user_id TEXT,
        key_id TEXT NOT NULL,
        sealed_key TEXT NOT NULL,
        parent_span TEXT,
        parent_project TEXT,
        created_at BIGINT NOT NULL,
        ended_at BIGINT
      )`,
      'CREATE INDEX agent_runs_conversation ON agent_runs (conversation_id, created_at)',
      // The generated workflow each organization runs an agent type with.
      `CREATE TABLE agent_workflows (
        organization_id TEXT NOT NULL,
        agent_type TEXT NOT NULL,
        workflow_id TEXT NOT NULL,
        definition_hash TEXT NOT NULL,
        service_account_id TEXT NOT NULL,
        PRIMARY KEY (organization_id, agent_type)
      )`,
      'CREATE INDEX agent_workflows_workflow ON agent_workflows (workflow_id)',
    ],
  },
  {
    version: 33,
    name: 'agent cards, allowances and disclosures',
    up: [
      // The card details are sealed; only what may be shown is in the clear.
      `CREATE TABLE agent_cards (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        name TEXT NOT NULL,
        brand TEXT NOT NULL,
        last4 TEXT NOT NULL,
        exp_month INTEGER NOT NULL,
        exp_year INTEGER NOT NULL,
        sealed_details TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        deleted_at BIGINT
      )`,
      'CREATE INDEX agent_cards_org ON agent_cards (organization_id, created_at)',
      `CREATE TABLE card_allowances (
        id TEXT PRIMARY KEY,
        card_id TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        agent_types TEXT NOT NULL,
        workflow_ids TEXT NOT NULL,
        merchants TEXT NOT NULL,
        max_uses INTEGER NOT NULL,
        uses INTEGER NOT NULL,
        expires_at BIGINT NOT NULL,
        created_by TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT
      )`,
      'CREATE INDEX card_allowances_card ON card_allowances (card_id)',
      // A handle is stored hashed; its redemption is the audit record.
      `CREATE TABLE card_disclosures (
        id TEXT PRIMARY KEY,
        card_id TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        allowance_id TEXT NOT NULL,
        handle_hash TEXT NOT NULL UNIQUE,
        run_id TEXT,
        requested_by TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        redeemed_at BIGINT,
        redeemed_run_id TEXT,
        redeemed_merchant TEXT
      )`,
      'CREATE INDEX card_disclosures_card ON card_disclosures (card_id, created_at)',
    ],
  },
  {
    version: 34,
    name: 'runs by retry',
    up: [
      // Bulk retry skips runs already retried.
      'CREATE INDEX runs_retry_of ON runs (retry_of) WHERE retry_of IS NOT NULL',
    ],
  },
  {
    version: 35,
    name: 'runs: two index entries fewer per run',
    up: [
      // Every lookup by owner is of running runs, which runs_running_owner holds.
      'DROP INDEX runs_owner',
      // Most runs have no idempotency key; a lookup names one, so it uses the partial index.
      'DROP INDEX runs_idempotency',
      'CREATE UNIQUE INDEX runs_idempotency ON runs (workflow_id, idempotency_key) WHERE idempotency_key IS NOT NULL',
    ],
  },
  {
    version: 36,
    name: 'sign-in failures kept in the database',
    up: [
      // One row per account or client address (a hash of it, never the text): the times of its
      // failed sign-ins within the window, oldest first, as a JSON array. Every API process counts
      // the same attempts.
      `CREATE TABLE sign_in_failures (
        key TEXT PRIMARY KEY,
        failures TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      'CREATE INDEX sign_in_failures_updated ON sign_in_failures (updated_at)',
    ],
  },
  {
    version: 37,
    name: 'templates: the app version approval pinned',
    up: [
      // What approval saw of a template's app: other organizations' forks receive exactly this version.
      'ALTER TABLE templates ADD COLUMN approved_app_id TEXT',
      'ALTER TABLE templates ADD COLUMN approved_app_version_id TEXT',
      // Templates approved before: their app's version as it stood at the last approval, read
      // through the template's own organization (a reference to another's app pins nothing).
      `UPDATE templates SET approved_app_version_id = (
        SELECT v.id FROM app_versions v JOIN apps a ON a.id = v.app_id
        WHERE a.id = templates.generated_app_id AND a.organization_id = templates.organization_id
          AND (templates.generated_app_version_id IS NULL OR v.id = templates.generated_app_version_id)
          AND v.created_at <= (SELECT MAX(m.decided_at) FROM template_moderation m WHERE m.template_id = templates.id AND m.decision = 'approved')
        ORDER BY v.version DESC LIMIT 1
      ) WHERE public_version IS NOT NULL AND generated_app_id IS NOT NULL`,
      'UPDATE templates SET approved_app_id = generated_app_id WHERE approved_app_version_id IS NOT NULL',
      // An approved template whose app changed since (or whose reference pins nothing) goes back to review.
      `UPDATE templates SET moderation_status = 'pending'
      WHERE visibility = 'public' AND moderation_status = 'approved' AND generated_app_id IS NOT NULL
        AND (approved_app_version_id IS NULL OR approved_app_version_id <> COALESCE(generated_app_version_id, (
          SELECT v.id FROM app_versions v JOIN apps a ON a.id = v.app_id AND v.version = a.latest_version
          WHERE a.id = templates.generated_app_id AND a.organization_id = templates.organization_id
        ), ''))`,
    ],
  },
  {
    version: 38,
    name: 'polling triggers: cursor, seen keys and a fenced lease per trigger instance',
    up: [
      // One row per polling trigger node of a live version. `seen` holds the keys of the latest
      // items (a JSON array, newest last, bounded); `fence` grows with every lease taken, and a
      // poll's result is committed only by the holder of the current fence.
      `CREATE TABLE trigger_polls (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        workflow_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        trigger_type TEXT NOT NULL,
        config TEXT NOT NULL,
        version INTEGER NOT NULL,
        active INTEGER NOT NULL,
        cursor TEXT,
        seen TEXT NOT NULL,
        primed INTEGER NOT NULL,
        next_poll_at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT,
        fence BIGINT NOT NULL,
        last_polled_at BIGINT,
        last_items INTEGER NOT NULL,
        last_runs INTEGER NOT NULL,
        last_error TEXT,
        failures INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        UNIQUE (workflow_id, node_id)
      )`,
      'CREATE INDEX trigger_polls_due ON trigger_polls (next_poll_at) WHERE active = 1',
    ],
  },
  {
    version: 39,
    name: 'trigger subscriptions (onEnable/onDisable)',
    up: [
      // One row per subscription a trigger instance made with its platform (a trigger node of a
      // live version whose trigger has onEnable). A row outlives its workflow until onDisable
      // succeeds or is given up: `state` is enabling, enabled, disabling, disabled or failed.
      // `sealed_store` is the instance's key-value store, sealed; `next_attempt_at` is when the
      // keeper next calls the plugin (an enable, a renewal before `expires_at`, a disable).
      `CREATE TABLE trigger_subscriptions (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        workflow_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        trigger_type TEXT NOT NULL,
        config TEXT NOT NULL,
        state TEXT NOT NULL,
        sealed_store TEXT,
        expires_at BIGINT,
        enabled_at BIGINT,
        disabling_since BIGINT,
        attempts INTEGER NOT NULL,
        next_attempt_at BIGINT,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      'CREATE INDEX trigger_subscriptions_workflow ON trigger_subscriptions (workflow_id)',
      'CREATE INDEX trigger_subscriptions_due ON trigger_subscriptions (next_attempt_at) WHERE next_attempt_at IS NOT NULL',
      "CREATE INDEX trigger_subscriptions_enabled ON trigger_subscriptions (organization_id, trigger_type) WHERE state = 'enabled'",
    ],
  },
  {
    version: 40,
    name: 'OAuth2 connector tokens',
    up: [
      // One row per OAuth2 connector: its tokens sealed, when the access token expires, and a
      // lease that lets one process at a time refresh them (a conditional UPDATE takes it).
      `CREATE TABLE connector_oauth2_tokens (
        connector_id TEXT PRIMARY KEY REFERENCES connectors(id) ON DELETE CASCADE,
        organization_id TEXT NOT NULL,
        state TEXT NOT NULL,
        sealed_access_token TEXT,
        sealed_refresh_token TEXT,
        expires_at BIGINT,
        scope TEXT,
        last_error TEXT,
        lease_owner TEXT,
        lease_until BIGINT,
        updated_at BIGINT NOT NULL
      )`,
      // Authorizations under way: the state (a hash of it: the state is the callback's only
      // credential) and the PKCE verifier, sealed. Single use, good for ten minutes.
      `CREATE TABLE oauth2_authorizations (
        state_hash TEXT PRIMARY KEY,
        connector_id TEXT NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        organization_id TEXT NOT NULL,
        sealed_verifier TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      'CREATE INDEX oauth2_authorizations_created ON oauth2_authorizations (created_at)',
    ],
  },
  {
    version: 41,
    name: 'OpenID Connect sign-in',
    up: [
      // Providers added with the CLI (the environment's, `default`, is not stored); the client
      // secret sealed, the group mapping as `group=organization:role` pairs.
      `CREATE TABLE oidc_providers (
        name TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        sealed_client_secret TEXT NOT NULL,
        groups_claim TEXT NOT NULL,
        group_roles TEXT NOT NULL,
        scopes TEXT NOT NULL,
        jit INTEGER NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      // Who a provider's subject is here: written at the first sign-in (JIT) or once the person
      // proved their password.
      `CREATE TABLE oidc_identities (
        provider TEXT NOT NULL,
        subject TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (provider, subject)
      )`,
      // Sign-ins under way: the state's hash, the PKCE verifier and nonce (sealed), where to land.
      // Single use, good for ten minutes. A row with a user id is a link waiting for the password.
      `CREATE TABLE oidc_authorizations (
        state_hash TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        sealed_verifier TEXT NOT NULL,
        return_to TEXT NOT NULL,
        subject TEXT,
        user_id TEXT,
        created_at BIGINT NOT NULL
      )`,
      'CREATE INDEX oidc_authorizations_created ON oidc_authorizations (created_at)',
      // Sessions begun by a provider: its refresh token (sealed) and when groups were last checked.
      `CREATE TABLE oidc_sessions (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        provider TEXT NOT NULL,
        subject TEXT NOT NULL,
        sealed_refresh_token TEXT,
        checked_at BIGINT NOT NULL
      )`,
      // One-time sign-in links an operator makes (the break-glass of SSO-required organizations).
      `CREATE TABLE sign_in_links (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
      'ALTER TABLE organizations ADD COLUMN sso_required INTEGER NOT NULL DEFAULT 0',
    ],
  },
  {
    version: 42,
    name: 'x402: the payment of a run',
    // A paid run shows who paid what: its payment is found by the run it started.
    up: ['CREATE INDEX x402_payments_run ON x402_payments (run_id)'],
  },
  {
    version: 43,
    name: 'runs: test runs of a draft',
    // A test run (the editor's, with a pinned sample) is kept out of production views unless asked for.
    up: ['ALTER TABLE runs ADD COLUMN test INTEGER NOT NULL DEFAULT 0'],
  },
  {
    version: 44,
    name: 'flow control: rate windows, held runs',
    // A rate limit's sliding window, one row per admitted run within it (pruned as it slides); a run
    // counted by a concurrency limit carries its key, and a held run says what it waits for.
    up: [
      `CREATE TABLE flow_hits (
        workflow_id TEXT NOT NULL,
        flow_key TEXT NOT NULL,
        at BIGINT NOT NULL
      )`,
      'CREATE INDEX flow_hits_key ON flow_hits (workflow_id, flow_key, at)',
      'ALTER TABLE runs ADD COLUMN flow_key TEXT',
      'ALTER TABLE runs ADD COLUMN waiting_for TEXT',
      'CREATE INDEX runs_flow ON runs (workflow_id, flow_key, status) WHERE flow_key IS NOT NULL',
    ],
  },
  {
    version: 45,
    name: 'audit log: append-only records chained per organization',
    // Records are never updated; a head per organization holds the chain's end and the pruning checkpoint.
    up: [
      `CREATE TABLE audit_events (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        at BIGINT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        operation TEXT NOT NULL,
        resource_type TEXT NOT NULL,
        resource_id TEXT,
        outcome TEXT NOT NULL,
        address TEXT,
        user_agent TEXT,
        details TEXT NOT NULL,
        hash TEXT NOT NULL
      )`,
      'CREATE UNIQUE INDEX audit_events_chain ON audit_events (organization_id, seq)',
      'CREATE INDEX audit_events_at ON audit_events (organization_id, at)',
      `CREATE TABLE audit_heads (
        organization_id TEXT PRIMARY KEY,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        pruned_seq BIGINT NOT NULL,
        pruned_hash TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 46,
    name: 'flow control: throttle buckets',
    // One row per throttle key: the time its bucket is next empty of one start.
    up: [
      `CREATE TABLE flow_buckets (
        workflow_id TEXT NOT NULL,
        flow_key TEXT NOT NULL,
        tat BIGINT NOT NULL,
        PRIMARY KEY (workflow_id, flow_key)
      )`,
    ],
  },
  {
    version: 47,
    name: 'journal: the events of one write in one row',
    // The events table becomes the journal: a row holds n events with the ids id … id + n - 1 (and
    // a run's seq … seq + n - 1); a row of more than one keeps them in data as [type, nodeId, data,
    // at] arrays. Rows stored before are rows of one. On Postgres each row takes a block of 128 ids
    // from the sequence, starting at 1 + 128k. The events view shows one row per event, as before.
    up: {
      sqlite: [
        'ALTER TABLE events RENAME TO journal',
        'ALTER TABLE journal ADD COLUMN n INTEGER NOT NULL DEFAULT 1',
        `CREATE VIEW events AS
          SELECT id, organization_id, workflow_id, run_id, seq, type, node_id, data, at FROM journal WHERE n = 1
          UNION ALL
          SELECT j.id + e.key, j.organization_id, j.workflow_id, j.run_id, j.seq + e.key,
            json_extract(e.value, '$[0]'), json_extract(e.value, '$[1]'), json_extract(e.value, '$[2]'), json_extract(e.value, '$[3]')
          FROM journal j, json_each(j.data) e WHERE j.n > 1`,
      ],
      postgres: [
        'ALTER TABLE events RENAME TO journal',
        'ALTER TABLE journal ADD COLUMN n INTEGER NOT NULL DEFAULT 1',
        'ALTER SEQUENCE events_id_seq INCREMENT BY 128',
        `SELECT setval('events_id_seq', ((GREATEST((SELECT last_value FROM events_id_seq), (SELECT COALESCE(MAX(id), 0) FROM journal)) - 1) / 128) * 128 + 1)`,
        `CREATE VIEW events AS
          SELECT id, organization_id, workflow_id, run_id, seq, type, node_id, data, at FROM journal WHERE n = 1
          UNION ALL
          SELECT j.id + e.i - 1, j.organization_id, j.workflow_id, j.run_id, (j.seq + e.i - 1)::integer,
            e.v->>0, e.v->>1, (e.v->2)::text, (e.v->>3)::bigint
          FROM journal j CROSS JOIN LATERAL json_array_elements(CASE WHEN j.n > 1 THEN j.data::json ELSE '[]'::json END)
            WITH ORDINALITY AS e(v, i)
          WHERE j.n > 1`,
      ],
    },
  },
  {
    version: 48,
    name: 'fairness: fair shares of organizations, runs waiting for their turn',
    // An operator's weight for an organization when runs wait to start (`orgs set --fair-share`),
    // and a run an API process held back for its organization's turn: the order it starts in.
    up: [
      'ALTER TABLE organizations ADD COLUMN fair_share INTEGER NOT NULL DEFAULT 1',
      'ALTER TABLE runs ADD COLUMN fair_rank BIGINT',
      "CREATE INDEX runs_fair ON runs (organization_id, fair_rank) WHERE status = 'waiting' AND fair_rank IS NOT NULL",
    ],
  },
  {
    version: 49,
    name: 'single sign-on back-channel logout; audit delivery to an endpoint',
    up: [
      // The provider's session id (the ID token's `sid`), which a back-channel logout may name.
      'ALTER TABLE oidc_sessions ADD COLUMN sid TEXT',
      'CREATE INDEX oidc_sessions_subject ON oidc_sessions (provider, subject)',
      // Per organization: the last record the audit endpoint acknowledged, and who is sending now.
      `CREATE TABLE audit_deliveries (
        organization_id TEXT PRIMARY KEY,
        seq BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT NOT NULL
      )`,
    ],
  },
]

function executionHooks(): string[] {
  return [
    `CREATE TABLE hook_endpoints (
      id TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL REFERENCES organizations(id),
      name TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      url TEXT NOT NULL,
      secret TEXT NOT NULL,
      previous_secret TEXT,
      previous_secret_until BIGINT,
      event_types TEXT NOT NULL,
      max_retries INTEGER NOT NULL,
      status TEXT NOT NULL,
      disabled_reason TEXT,
      disabled_at BIGINT,
      created_at BIGINT NOT NULL,
      created_by TEXT NOT NULL,
      updated_at BIGINT NOT NULL,
      updated_by TEXT NOT NULL
    )`,
    'CREATE INDEX hook_endpoints_org ON hook_endpoints (organization_id, id)',
    // The outbox. due_at is the worker's clock (a retry's time, or the end of a lease) and is
    // NULL once a delivery is finished, so the partial index holds only the live rows.
    `CREATE TABLE hook_deliveries (
      id TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL,
      endpoint_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      workflow_id TEXT,
      run_id TEXT,
      node_id TEXT,
      payload TEXT NOT NULL,
      status TEXT NOT NULL,
      attempt_count INTEGER NOT NULL DEFAULT 0,
      retry_count INTEGER NOT NULL DEFAULT 0,
      max_retries INTEGER NOT NULL,
      due_at BIGINT,
      next_retry_at BIGINT,
      claimed_by TEXT,
      response_status INTEGER,
      response_body TEXT,
      duration_ms INTEGER,
      error_message TEXT,
      attempts TEXT NOT NULL DEFAULT '[]',
      replay_of TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      delivered_at BIGINT
    )`,
    'CREATE INDEX hook_deliveries_due ON hook_deliveries (due_at) WHERE due_at IS NOT NULL',
    'CREATE INDEX hook_deliveries_org ON hook_deliveries (organization_id, id)',
    'CREATE INDEX hook_deliveries_endpoint ON hook_deliveries (endpoint_id, id)',
    'CREATE INDEX hook_deliveries_run ON hook_deliveries (run_id)',
  ]
}

function eventsTable(id: string): string {
  return `CREATE TABLE events (
    id ${id},
    organization_id TEXT NOT NULL,
    workflow_id TEXT,
    run_id TEXT,
    seq INTEGER,
    type TEXT NOT NULL,
    node_id TEXT,
    data TEXT NOT NULL,
    at BIGINT NOT NULL
  )`
}

function membersAndWorkflows(): string[] {
  return [
    `CREATE TABLE users (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL DEFAULT '',
      created_at BIGINT NOT NULL
    )`,
    `CREATE TABLE memberships (
      organization_id TEXT NOT NULL REFERENCES organizations(id),
      user_id TEXT NOT NULL REFERENCES users(id),
      role TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (organization_id, user_id)
    )`,
    `CREATE TABLE workflows (
      id TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL REFERENCES organizations(id),
      owner_user_id TEXT,
      trigger_secret TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      type TEXT NOT NULL,
      latest_version INTEGER NOT NULL,
      draft_version INTEGER,
      live_version INTEGER,
      live_status TEXT,
      paused_reason TEXT,
      archived_at BIGINT,
      remain_runs INTEGER,
      last_triggered_at BIGINT,
      consecutive_failures INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      created_by TEXT NOT NULL,
      updated_at BIGINT NOT NULL,
      updated_by TEXT NOT NULL
    )`,
    'CREATE INDEX workflows_org ON workflows (organization_id, id)',
    `CREATE TABLE workflow_versions (
      workflow_id TEXT NOT NULL REFERENCES workflows(id),
      version INTEGER NOT NULL,
      organization_id TEXT NOT NULL,
      content TEXT NOT NULL,
      type TEXT NOT NULL,
      version_created_by TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      updated_by TEXT NOT NULL,
      published_at BIGINT,
      PRIMARY KEY (workflow_id, version)
    )`,
    `CREATE TABLE workflow_variables (
      workflow_id TEXT NOT NULL,
      name TEXT NOT NULL,
      value TEXT NOT NULL,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (workflow_id, name)
    )`,
    `CREATE TABLE definitions (
      hash TEXT PRIMARY KEY,
      body TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE TABLE public_run_usage (
      workflow_id TEXT NOT NULL,
      caller TEXT NOT NULL,
      day TEXT NOT NULL,
      count INTEGER NOT NULL,
      last_at BIGINT NOT NULL,
      PRIMARY KEY (workflow_id, caller, day)
    )`,
  ]
}

function runsAndEvents(): string[] {
  return [
    // Streams replay a run by (run_id, seq). Organization and workflow streams resume from an
    // event id with a range scan of the primary key (only events newer than the resume point),
    // so two more indexes would cost every insert without making a resume faster.
    'CREATE UNIQUE INDEX events_run_seq ON events (run_id, seq)',
    `CREATE TABLE runs (
      id TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL,
      workflow_id TEXT NOT NULL,
      workflow_version INTEGER NOT NULL,
      status TEXT NOT NULL,
      trigger_type TEXT NOT NULL,
      trigger_node_id TEXT NOT NULL,
      triggered_by TEXT NOT NULL,
      automatic INTEGER NOT NULL,
      live INTEGER NOT NULL,
      event_id TEXT,
      idempotency_key TEXT,
      retry_of TEXT,
      definition_hash TEXT NOT NULL,
      trigger_event TEXT NOT NULL,
      prop_values TEXT NOT NULL,
      vars TEXT NOT NULL,
      seed TEXT,
      snapshot TEXT,
      last_seq INTEGER NOT NULL,
      error TEXT,
      started_at BIGINT NOT NULL,
      finished_at BIGINT,
      updated_at BIGINT NOT NULL,
      owner TEXT
    )`,
    'CREATE INDEX runs_org ON runs (organization_id, id)',
    'CREATE INDEX runs_workflow ON runs (workflow_id, id)',
    'CREATE UNIQUE INDEX runs_idempotency ON runs (workflow_id, idempotency_key)',
    "CREATE INDEX runs_active ON runs (status) WHERE status IN ('running', 'waiting')",
    'CREATE INDEX runs_finished ON runs (organization_id, finished_at)',
    `CREATE TABLE run_inbox (
      id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL,
      event TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    'CREATE INDEX run_inbox_run ON run_inbox (run_id, id)',
    `CREATE TABLE timers (
      id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL,
      node_key TEXT NOT NULL,
      kind TEXT NOT NULL,
      fire_at BIGINT NOT NULL
    )`,
    'CREATE INDEX timers_due ON timers (fire_at)',
    'CREATE INDEX timers_run ON timers (run_id)',
    `CREATE TABLE waits (
      id TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL,
      workflow_id TEXT NOT NULL,
      run_id TEXT NOT NULL,
      node_id TEXT NOT NULL,
      node_key TEXT NOT NULL,
      trigger_type TEXT,
      match TEXT,
      created_at BIGINT NOT NULL,
      expires_at BIGINT
    )`,
    'CREATE INDEX waits_run ON waits (run_id)',
    'CREATE INDEX waits_type ON waits (organization_id, trigger_type)',
  ]
}
