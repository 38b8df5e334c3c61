/**
 * Polls every process's /readyz a few times a second for the whole scenario and keeps what each
 * answer was and how long it took: whether a process said it was unready during an outage, and
 * how soon after the dependency's return it said it was ready again.
 */
import type { Proc } from './cluster.ts'

export interface ReadySample {
  at: number
  ms: number
  status: number | 'network-error' | 'timeout'
}

export interface ReadinessWatch {
  samples: Map<string, ReadySample[]>
  stop(): Promise<void>
}

export function watchReadiness(procs: Proc[], everyMs = 200, timeoutMs = 5_000): ReadinessWatch {
  const samples = new Map<string, ReadySample[]>(procs.map((p) => [p.name, []]))
  let stopped = false
  const poll = async (proc: Proc) => {
    while (!stopped) {
      const at = Date.now()
      let status: ReadySample['status']
      try {
        const response = await fetch(`${proc.url()}/readyz`, { signal: AbortSignal.timeout(timeoutMs) })
        await response.arrayBuffer()
        status = response.status
      } catch (error) {
        status = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network-error'
      }
      samples.get(proc.name)!.push({ at, ms: Date.now() - at, status })
      const rest = everyMs - (Date.now() - at)
      if (rest > 0) await Bun.sleep(rest)
    }
  }
  const loops = procs.map(poll)
  return {
    samples,
    async stop() {
      stopped = true
      await Promise.all(loops)
    },
  }
}

/**
 * When a process, asked at or after `since`, answered the first 200 of those it kept answering
 * to the end (null: it did not end ready). A process that says ready and then times out under the
 * returning load is not ready yet.
 */
export function readyForGoodAt(samples: ReadySample[], since: number): number | null {
  const after = samples.filter((s) => s.at >= since)
  let first: ReadySample | null = null
  for (const s of after) first = s.status === 200 ? (first ?? s) : null
  return first ? first.at + first.ms : null
}
