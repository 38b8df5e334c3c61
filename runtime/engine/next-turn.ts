/**
 * Calls `fn` on a later turn of the event loop, after pending I/O (setImmediate where the
 * runtime has it, else a zero timeout): for work that must let requests and timers in.
 */
export const nextTurn: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0)
