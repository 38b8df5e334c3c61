/** AI and agents: the OpenAI-compatible provider, credits, disabled agent types and card disclosures. */
import { type ConfigEntryOf, nullable, list, int, duration } from './parsers.ts'

export interface AiConfig {
  aiBaseUrl: string | null
  aiApiKey: string | null
  aiModel: string | null
  aiDefaultCredits: number
  agentsDisabled: string[]
  disclosureTtlMs: number
}

export const AI_ENTRIES: readonly ConfigEntryOf<AiConfig>[] = [
  {
    env: 'AUTOMATON_AI_BASE_URL',
    key: 'aiBaseUrl',
    default: '',
    description:
      'Base URL of an OpenAI-compatible chat-completions API (`http://localhost:11434/v1` for Ollama, a vLLM or LM Studio server, a hosted API); empty: the AI endpoints answer 503 and AI nodes fail. See ai.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AI_API_KEY',
    key: 'aiApiKey',
    default: '',
    description: 'API key sent to `AUTOMATON_AI_BASE_URL` (local servers need none).',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AI_MODEL',
    key: 'aiModel',
    default: '',
    description:
      'Model name asked of the AI provider (`llama3.1`, `qwen2.5-coder` …); required with `AUTOMATON_AI_BASE_URL`.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_AI_DEFAULT_CREDITS',
    key: 'aiDefaultCredits',
    default: '0',
    description:
      'AI credits a new organization starts with (1 credit = 1,000 tokens); `automaton credits grant` adds more.',
    parse: int(0),
  },
  {
    env: 'AUTOMATON_AGENTS_DISABLED',
    key: 'agentsDisabled',
    default: '',
    description:
      'Agent types (comma-separated, e.g. `researcher`) that cannot be started: 403, and left out of `GET /v1/agent-runs/agents`. See agents.md.',
    parse: list,
  },
  {
    env: 'AUTOMATON_DISCLOSURE_TTL',
    key: 'disclosureTtlMs',
    default: '5m',
    description:
      'How long a card disclosure handle (`POST /v1/agent-cards/{id}/disclosure`) can be redeemed, once (`30s`, `5m`). See agents.md.',
    parse: duration(1000),
  },
]
