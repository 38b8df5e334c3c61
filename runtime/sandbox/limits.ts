/**
 * Resource limits for one sandboxed transform, their defaults, and how overrides merge.
 * It only checks that limits are numbers the engine can honour; enforcing them is the job of
 * the guard and the run. Invalid limits are a host mistake and throw a RangeError.
 */
const KiB = 1024
const MiB = 1024 * KiB

export interface SandboxLimits {
  /** Wall-clock budget for evaluating the code, calling `transform` and settling its promise. */
  timeoutMs: number
  /** Heap the QuickJS runtime may use. */
  memoryBytes: number
  /** QuickJS stack; deeper recursion fails with a memory error. */
  stackBytes: number
  /** Largest input, as UTF-8 JSON. */
  maxInputBytes: number
  /** Largest output, as UTF-8 JSON. */
  maxOutputBytes: number
}

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  timeoutMs: 1000,
  memoryBytes: 32 * MiB,
  stackBytes: 512 * KiB,
  maxInputBytes: MiB,
  maxOutputBytes: MiB,
})

/**
 * Inclusive bounds per limit. Memory stays well below the shared WASM memory ceiling (256 MiB);
 * a QuickJS stack above 1 MiB only lets recursion exhaust the host's native stack first.
 */
const BOUNDS: Readonly<Record<keyof SandboxLimits, readonly [number, number]>> = {
  timeoutMs: [1, 10 * 60 * 1000],
  memoryBytes: [MiB, 128 * MiB],
  stackBytes: [16 * KiB, MiB],
  maxInputBytes: [1, 64 * MiB],
  maxOutputBytes: [1, 64 * MiB],
}

/** `base` with the defined fields of `overrides` applied, validated and frozen. */
export function resolveLimits(base: SandboxLimits, overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const merged = { ...base }
  for (const key of Object.keys(BOUNDS) as (keyof SandboxLimits)[]) {
    const value = overrides[key]
    if (value !== undefined) merged[key] = value
    assertInBounds(key, merged[key])
  }
  return Object.freeze(merged)
}

function assertInBounds(key: keyof SandboxLimits, value: unknown): void {
  const [min, max] = BOUNDS[key]
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new RangeError(`sandbox limit ${key} must be a number from ${min} to ${max}`)
  }
}
