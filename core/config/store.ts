/** The store and the bus: SQLite in the data dir or Postgres, the in-process bus or NATS. */
import { type ConfigEntryOf, str, nullable, int, oneOf, subjectPrefix } from './parsers.ts'

export interface StoreConfig {
  dataDir: string
  databaseUrl: string | null
  natsUrl: string | null
  natsStream: string
  natsPrefix: string
  sqliteSynchronous: 'full' | 'normal'
  pgPoolSize: number
}

export const STORE_ENTRIES: readonly ConfigEntryOf<StoreConfig>[] = [
  {
    env: 'AUTOMATON_DATA_DIR',
    key: 'dataDir',
    default: './data',
    description: 'Directory for the embedded SQLite database and the generated master key.',
    parse: str,
  },
  {
    env: 'AUTOMATON_DATABASE_URL',
    key: 'databaseUrl',
    default: '',
    description: '`postgres://…` selects the Postgres store; empty uses SQLite in the data dir.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_NATS_URL',
    key: 'natsUrl',
    default: '',
    description: '`nats://…` selects the NATS bus (JetStream); empty uses the in-process bus.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_NATS_STREAM',
    key: 'natsStream',
    default: 'AUTOMATON_WORK',
    description: 'Name of the JetStream stream that carries work to the workers (one per deployment).',
    parse: str,
  },
  {
    env: 'AUTOMATON_NATS_PREFIX',
    key: 'natsPrefix',
    default: '',
    description:
      'Prefix of every NATS subject this deployment uses (`<prefix>.evt.…`), for deployments sharing one NATS server; it also names the default work stream `<PREFIX>_AUTOMATON_WORK`. Empty keeps the unprefixed names.',
    parse: subjectPrefix,
  },
  {
    env: 'AUTOMATON_SQLITE_SYNCHRONOUS',
    key: 'sqliteSynchronous',
    default: 'full',
    description: '`full` survives power loss; `normal` survives a process crash only, and is faster.',
    parse: oneOf('full', 'normal'),
  },
  {
    env: 'AUTOMATON_PG_POOL_SIZE',
    key: 'pgPoolSize',
    default: '10',
    description: 'Connections each process opens to Postgres.',
    parse: int(2, 1000),
  },
]
