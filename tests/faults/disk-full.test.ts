/**
 * The embedded server's disk (a tmpfs of its own) filled to the last byte for 10 s under load:
 * writes answer 503 and /readyz says so, nothing exits, and every accepted run ends exactly once
 * once space is freed.
 */
import { describeFault } from './describe-fault.ts'

await describeFault('disk-full', 'a full disk under the embedded server')
