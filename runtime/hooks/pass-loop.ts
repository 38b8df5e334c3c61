/**
 * The loop of a shipper that works in passes (the audit file, the audit endpoint): one pass at a
 * time (a pass asked for while one runs joins it), the next scheduled a period after each ends,
 * a failed pass reported and tried again at the next; stopping waits for the pass in flight.
 */
export interface PassLoop {
  /** One pass now, or the one already running. */
  passNow(): Promise<number>
  start(): void
  /** Ends the loop; resolves once the pass in flight has ended. */
  stop(): Promise<void>
  /** Whether stop was asked for (a pass checks it between its steps). */
  readonly stopped: boolean
}

export function createPassLoop(
  pass: () => Promise<number>,
  pollMs: number,
  onError: (error: unknown) => void,
): PassLoop {
  let timer: ReturnType<typeof setTimeout> | null = null
  let running: Promise<number> | null = null
  let stopped = false

  function passNow(): Promise<number> {
    running ??= pass().finally(() => {
      running = null
    })
    return running
  }

  function schedule() {
    if (stopped) return
    timer = setTimeout(() => {
      passNow().catch(onError).finally(schedule)
    }, pollMs)
  }

  return {
    passNow,
    start: schedule,
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running?.catch(() => {})
    },
    get stopped() {
      return stopped
    },
  }
}
