/** The Solidity compiler as a port (the solc adapter compiles off the event loop). */
export interface CompiledContract {
  name: string
  abi: unknown[]
  /** Creation bytecode, 0x-prefixed hex. */
  bytecode: string
}

export interface CompileResult {
  contracts: CompiledContract[]
  /** Formatted errors; none when the source compiled. */
  errors: string[]
  warnings: string[]
}

export interface SolidityCompiler {
  readonly version: string
  compile(source: string, fileName?: string): Promise<CompileResult>
  close(): Promise<void>
}
