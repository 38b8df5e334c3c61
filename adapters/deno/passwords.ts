/**
 * argon2id in WebAssembly (hash-wasm), for runtimes without a native one (Deno). Same PHC form
 * and parameters as the Bun adapter, so an installation can move between the two.
 */
import { argon2id, argon2Verify } from 'hash-wasm'
import type { PasswordHasher } from '../../core/ports/passwords.ts'

export function wasmPasswordHasher(options: { memoryCost?: number; timeCost?: number } = {}): PasswordHasher {
  return {
    hash: (password) =>
      argon2id({
        password,
        salt: crypto.getRandomValues(new Uint8Array(16)),
        parallelism: 1,
        iterations: options.timeCost ?? 2,
        memorySize: options.memoryCost ?? 65536,
        hashLength: 32,
        outputType: 'encoded',
      }),
    async verify(password, hash) {
      if (!hash.startsWith('$argon2id$')) return false
      try {
        return await argon2Verify({ password, hash })
      } catch {
        return false
      }
    },
  }
}
