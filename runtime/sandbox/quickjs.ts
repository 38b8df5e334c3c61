/**
 * The QuickJS WASM engine, loaded once per thread on first use and shared by every sandboxed call
 * on that thread (each pool worker has its own). Its WebAssembly.Memory has a fixed ceiling, so no
 * transform can grow its thread's share of the process past it. An engine that a call left in an
 * unknown state (the host's stack overflowed inside WASM, or QuickJS aborted) is retired; the pool
 * then replaces that worker, and in-process callers load a fresh engine on their next call.
 * It does not create runtimes or enforce per-call limits.
 */
import variant from '@jitl/quickjs-singlefile-mjs-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core'

const MiB = 1024 * 1024
const WASM_PAGE_BYTES = 64 * 1024
const INITIAL_WASM_BYTES = 16 * MiB
/** All runtimes together never use more WASM memory than this; it is never given back. */
export const WASM_MEMORY_CEILING_BYTES = 256 * MiB

export interface Engine {
  readonly module: QuickJSWASMModule
  readonly memory: WebAssembly.Memory
}

let loading: Promise<Engine> | undefined
let loaded: Engine | undefined
const retired = new WeakSet<Engine>()

/** The shared engine, loading it on first use or after the last one was retired. */
export async function acquireEngine(): Promise<Engine> {
  for (;;) {
    loading ??= loadEngine()
    const engine = await loading
    if (!retired.has(engine)) return engine
  }
}

/** Whether a call left `engine` in an unknown state, so it must not be used again. */
export function isRetired(engine: Engine): boolean {
  return retired.has(engine)
}

/** Stops handing out `engine`; nothing of it is touched again. */
export function retireEngine(engine: Engine): void {
  retired.add(engine)
  if (loaded === engine) {
    loaded = undefined
    loading = undefined
  }
}

async function loadEngine(): Promise<Engine> {
  const memory = new WebAssembly.Memory({
    initial: INITIAL_WASM_BYTES / WASM_PAGE_BYTES,
    maximum: WASM_MEMORY_CEILING_BYTES / WASM_PAGE_BYTES,
  })
  try {
    const module = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory }))
    loaded = { module, memory }
    return loaded
  } catch (error) {
    loading = undefined
    throw error
  }
}
