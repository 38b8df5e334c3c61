/**
 * The limit on password guessing: failed sign-ins are counted per account and per client address,
 * and wrong current passwords of a password change per account, in a sliding window kept in the
 * store (so every API process counts the same attempts; core/store/sign-in-failures.ts).
 *
 * An attempt is taken before the password is checked and counts as a failure unless the password
 * was right, so attempts sent at once check no more passwords than the limit allows; past it the
 * caller gets 429 with `Retry-After` until enough failures have left the window. It does not slow
 * answers down and does not hide whether an email exists: the caller keeps both (people.ts).
 */
import { tooManyRequests } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { type FailureLimit, signInFailures } from '../store/sign-in-failures.ts'

export interface ThrottleSettings {
  /** Failures allowed per account, and per client address, within `failureWindowMs`. */
  failuresPerAccount: number
  failuresPerAddress: number
  failureWindowMs: number
}

/** An attempt taken: it stays a failure unless the password was right. */
export interface Attempt {
  /** The password was right: the account's failures are forgotten and the address's attempt given back. */
  succeeded(tx: SqlExecutor): Promise<void>
}

export interface SignInThrottle {
  /** A sign-in of `email` from `address`; 429 when either has failed too often. */
  signIn(email: string, address: string | null): Promise<Attempt>
  /** A password change's check of the current password; 429 when the account has failed too often. */
  passwordCheck(email: string): Promise<Attempt>
  /** An operator set a new password: the account's failures are forgotten. */
  forget(tx: SqlExecutor, email: string): Promise<void>
}

const keyOfAccount = (email: string) => sha256Hex(`account:${email.trim().toLowerCase()}`)
const keyOfAddress = (address: string | null) => sha256Hex(`address:${address ?? 'unknown'}`)

export function createSignInThrottle(deps: { store: Store; clock: Clock; settings: ThrottleSettings }): SignInThrottle {
  const { store, clock, settings } = deps

  /**
   * The account's row is locked before the address's, always, so that two attempts never lock
   * each other's rows in a cycle (two processes' batches still may; the store retries them alone).
   */
  async function take(account: string, address: string | null): Promise<Attempt> {
    const limits: FailureLimit[] = [{ key: account, limit: settings.failuresPerAccount }]
    if (address !== null) limits.push({ key: address, limit: settings.failuresPerAddress })
    const at = clock.now()
    const wait = await store.write((tx) => signInFailures.take(tx, limits, at, settings.failureWindowMs))
    if (wait > 0) throw tooManyRequests('too many failed sign-ins; try again later', wait)
    return {
      async succeeded(tx) {
        await signInFailures.clear(tx, account)
        if (address !== null) await signInFailures.giveBack(tx, address, at)
      },
    }
  }

  return {
    signIn: async (email, address) => take(await keyOfAccount(email), await keyOfAddress(address)),
    passwordCheck: async (email) => take(await keyOfAccount(email), null),
    forget: async (tx, email) => void (await signInFailures.clear(tx, await keyOfAccount(email))),
  }
}
