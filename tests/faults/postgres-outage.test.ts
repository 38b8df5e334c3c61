/**
 * Postgres stopped for 10 s under load, under two `serve` processes sharing it (no NATS), on a
 * private Postgres this test starts and stops: requests and /readyz answer 503 meanwhile, and
 * afterwards every accepted run ends exactly once, with no double take-over between the two.
 */
import { describeFault } from './describe-fault.ts'

await describeFault('pg-stop-serve-pair', 'Postgres stopped 10 s under two serve processes')
