/**
 * Versions 34 to 49: leaner run indexes, sign-in failures, pinned template apps, polling triggers and
 * trigger subscriptions, OAuth2 and OpenID Connect, flow control, the audit log, the batched journal
 * and fair shares.
 */
import type { Migration } from '../../ports/store.ts'

export const triggersSignInAndFlowControl: readonly Migration[] = [
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
