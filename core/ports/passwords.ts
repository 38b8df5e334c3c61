/**
 * The password port: argon2id hashes in the PHC string form (`$argon2id$v=19$m=…,t=…,p=…$…`),
 * so a hash made by one runtime's adapter verifies under the other's.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>
  /** False for a wrong password or a hash that is not argon2id; never throws for either. */
  verify(password: string, hash: string): Promise<boolean>
}

/** The smallest and largest passwords accepted (bytes beyond 1,024 only cost hashing time). */
export const PASSWORD_MIN_LENGTH = 10
export const PASSWORD_MAX_LENGTH = 1024
