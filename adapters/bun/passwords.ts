/** argon2id through Bun's native `Bun.password` (64 MiB, 2 passes: the OWASP floor is 19 MiB, 2 passes). */
import type { PasswordHasher } from '../../core/ports/passwords.ts'

export function bunPasswordHasher(options: { memoryCost?: number; timeCost?: number } = {}): PasswordHasher {
  const algorithm = {
    algorithm: 'argon2id' as const,
    memoryCost: options.memoryCost ?? 65536,
    timeCost: options.timeCost ?? 2,
  }
  return {
    hash: (password) => Bun.password.hash(password, algorithm),
    async verify(password, hash) {
      if (!hash.startsWith('$argon2id$')) return false
      try {
        return await Bun.password.verify(password, hash, 'argon2id')
      } catch {
        return false
      }
    },
  }
}
