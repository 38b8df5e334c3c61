/**
 * Versions 27 to 33: wallets and contract deployments, x402 payments and endpoints, the AI credit
 * ledger, agent runs and the cards agents may spend with.
 */
import type { Migration } from '../../ports/store.ts'

export const walletsPaymentsAndAgents: readonly Migration[] = [
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
]
