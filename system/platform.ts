/** The version of this build and the runtime it runs on. */
import pkg from '../package.json' with { type: 'json' }

export const VERSION: string = pkg.version
export const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined'
