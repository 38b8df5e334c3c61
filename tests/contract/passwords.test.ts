import { bunPasswordHasher } from '../../adapters/bun/passwords.ts'
import { wasmPasswordHasher } from '../../adapters/deno/passwords.ts'
import { describePasswordHasherContract, type PasswordHasherFactory } from './passwords.contract.ts'

// The WebAssembly hasher is the one Deno uses; it runs on Bun as well, so both run here.
const bun: PasswordHasherFactory = { name: 'Bun (native argon2id)', create: (costs) => bunPasswordHasher(costs) }
const wasm: PasswordHasherFactory = { name: 'WebAssembly (hash-wasm)', create: (costs) => wasmPasswordHasher(costs) }

describePasswordHasherContract(bun, [wasm])
describePasswordHasherContract(wasm, [bun])
