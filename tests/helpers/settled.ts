/**
 * Whether a promise has settled, asked without waiting for time: only the microtasks already
 * queued (and those they queue) run, never a timer, I/O or a worker's message. A manual clock
 * advanced just before decides what may have happened; nothing that takes wall-clock time can.
 */
export async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  for (let turn = 0; turn < 50 && !settled; turn++) await Promise.resolve()
  return settled
}
