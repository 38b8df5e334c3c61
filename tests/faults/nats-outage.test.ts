/**
 * NATS killed (SIGKILL) for 10 s under load, under an API process and a worker on a private
 * Postgres and a private NATS: admission goes on, /readyz says the bus is away, and every
 * accepted run ends exactly once after NATS is back.
 */
import { describeFault } from './describe-fault.ts'

await describeFault('nats-kill', 'NATS killed 10 s under an API process and a worker', { workers: 1 })
