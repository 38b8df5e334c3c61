/**
 * Versioned schema migrations, in portable SQL: TEXT, BIGINT (milliseconds), INTEGER flags,
 * JSON as TEXT. A migration is never edited once released; changes come as a new version.
 *
 * The list is kept in one file per era of the schema, concatenated in the order they were written.
 * Stores apply migrations by version, so a version out of place in the list changes nothing.
 */
import type { Migration } from '../ports/store.ts'
import { peopleTemplatesAndChat } from './migrations/people-templates-and-chat.ts'
import { triggersSignInAndFlowControl } from './migrations/triggers-sign-in-and-flow-control.ts'
import { walletsPaymentsAndAgents } from './migrations/wallets-payments-and-agents.ts'
import { workflowsRunsAndTriggers } from './migrations/workflows-runs-and-triggers.ts'

export const MIGRATIONS: readonly Migration[] = [
  ...workflowsRunsAndTriggers,
  ...peopleTemplatesAndChat,
  ...walletsPaymentsAndAgents,
  ...triggersSignInAndFlowControl,
]
