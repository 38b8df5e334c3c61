/**
 * Waits for something that happens on its own (a process noticing an outage, a run ending):
 * polls `check` until it holds, and fails naming `what` after `ms`. The bound only stops a test
 * that would hang; what is asserted is that it happened.
 */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`${what} did not happen within ${ms} ms`)
}
