/** Secrets and sign-in: the master key, the bootstrap key, sessions, passwords, the operator organization, and the secrets of inbound integrations. */
import { type ConfigEntryOf, bool, str, nullable, int, span } from './parsers.ts'

export interface SecurityConfig {
  masterKey: string | null
  masterKeyPrevious: string | null
  bootstrapKey: string | null
  sessionIdleMs: number
  sessionMaxAgeMs: number
  invitationTtlMs: number
  passwordHashMemoryKib: number
  operatorOrganization: string
  starterTemplates: boolean
  paginationBypassKey: string | null
  chatappSigningSecret: string | null
  crosschainApiKey: string | null
}

export const SECURITY_ENTRIES: readonly ConfigEntryOf<SecurityConfig>[] = [
  {
    env: 'AUTOMATON_MASTER_KEY',
    key: 'masterKey',
    default: '',
    description:
      '32 bytes, base64, that encrypt secrets at rest. Empty: generated into the data dir on first start (every process of one deployment must share it).',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_MASTER_KEY_PREVIOUS',
    key: 'masterKeyPrevious',
    default: '',
    description:
      'The master key being replaced, during a key rotation: secrets sealed with it still open, and it keeps sealing until `automaton master-key rotate` has switched to `AUTOMATON_MASTER_KEY`.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_BOOTSTRAP_KEY',
    key: 'bootstrapKey',
    default: '',
    description: 'A raw `svcsk_…` key; at start it ensures the organization `default` with an owner key of this value.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_SESSION_IDLE',
    key: 'sessionIdleMs',
    default: '12h',
    description: 'A sign-in session unused this long ends (`90m`, `12h`, `2d`).',
    parse: span,
  },
  {
    env: 'AUTOMATON_SESSION_MAX_AGE',
    key: 'sessionMaxAgeMs',
    default: '30d',
    description: 'A sign-in session ends this long after sign-in, however much it is used.',
    parse: span,
  },
  {
    env: 'AUTOMATON_INVITATION_TTL',
    key: 'invitationTtlMs',
    default: '7d',
    description: 'How long an invitation into an organization can be accepted.',
    parse: span,
  },
  {
    env: 'AUTOMATON_PASSWORD_HASH_MEMORY_KIB',
    key: 'passwordHashMemoryKib',
    default: '65536',
    description:
      'Memory of one argon2id password hash, in KiB (at least the 19,456 OWASP recommends); more makes guessing costlier and sign-in slower.',
    parse: int(19456, 4194304),
  },
  {
    env: 'AUTOMATON_OPERATOR_ORG',
    key: 'operatorOrganization',
    default: 'default',
    description:
      'The organization (name or id) whose owners moderate public templates and manage tags (`template:moderate`); other organizations never hold that permission.',
    parse: str,
  },
  {
    env: 'AUTOMATON_STARTER_TEMPLATES',
    key: 'starterTemplates',
    default: 'true',
    description:
      'Whether a fresh installation gets five starter templates (approved, in the operator organization, which is created when missing); `false` leaves them out.',
    parse: bool,
  },
  {
    env: 'AUTOMATON_PAGINATION_BYPASS_KEY',
    key: 'paginationBypassKey',
    default: '',
    description:
      'A secret that lets `GET /v1/tags` answer more than 1,000 tags at once (`pagination_bypass_key`, up to 10,000); empty: no bypass.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_CHATAPP_SIGNING_SECRET',
    key: 'chatappSigningSecret',
    default: '',
    description:
      'Signing secret of the chat platform app that posts to `/v1/integrations/chatapp/events`; empty: that endpoint refuses every request (401).',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_CROSSCHAIN_API_KEY',
    key: 'crosschainApiKey',
    default: '',
    description:
      'The `x-api-key` the cross-chain payment service sends with its callback (`/v1/internal/crosschain/order-completed`); empty: the callback refuses every request (401).',
    parse: nullable,
  },
]
