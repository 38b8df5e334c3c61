/**
 * Steering runs from the API: cancel and resume become events in the run's inbox (durable
 * before the call answers), and the run is woken to take them.
 */
import type { RunStatus } from '../core/domain/run.ts'
import { isTerminal } from '../core/domain/run.ts'
import { conflict, notFound } from '../core/errors.ts'
import type { RecordedEvent } from '../core/events.ts'
import { parseJson } from '../core/json.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { RunControl } from '../core/ports/engine.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Store } from '../core/ports/store.ts'
import type { RunState } from './engine/state.ts'

const TERMINAL_EVENTS = new Set(['run.succeeded', 'run.partial', 'run.failed', 'run.cancelled'])

export function createRunControl(deps: { store: Store; bus: Bus; clock: Clock; ids: Ids; wake(runId: string): void; cancelWaitMs?: number }): RunControl {
  const post = (runId: string, event: Record<string, unknown>) =>
    deps.store.write((tx) =>
      tx.run('INSERT INTO run_inbox (id, run_id, event, created_at) VALUES ($1, $2, $3, $4)', [deps.ids.next('evt'), runId, JSON.stringify(event), deps.clock.now()]),
    )

  /** Resolves with the run's status once it is terminal, or after `ms`. */
  function untilTerminal(runId: string, ms: number): Promise<RunStatus> {
    return new Promise((resolve) => {
      let done = false
      const finish = async () => {
        if (done) return
        done = true
        subscription.unsubscribe()
        clearTimeout(timer)
        const row = await deps.store.get<{ status: RunStatus }>('SELECT status FROM runs WHERE id = $1', [runId])
        resolve(row?.status ?? 'cancelled')
      }
      const subscription = deps.bus.subscribe<RecordedEvent>(`evt.*.*.${runId}`, (m) => {
        if (TERMINAL_EVENTS.has(m.data.type)) void finish()
      })
      const timer = setTimeout(finish, ms)
      deps.store.get<{ status: string }>('SELECT status FROM runs WHERE id = $1', [runId]).then((row) => {
        if (row && isTerminal(row.status)) void finish()
      })
    })
  }

  return {
    async cancel(organizationId, runId) {
      const row = await deps.store.get<{ status: string }>('SELECT status FROM runs WHERE organization_id = $1 AND id = $2', [organizationId, runId])
      if (!row) throw notFound('run')
      if (isTerminal(row.status)) throw conflict(`the run has already finished (${row.status})`)
      const finished = untilTerminal(runId, deps.cancelWaitMs ?? 5000)
      await post(runId, { type: 'CANCEL', reason: 'cancelled through the API' })
      deps.wake(runId)
      return finished
    },

    async resume(organizationId, runId, nodeId, data) {
      const row = await deps.store.get<{ status: string; snapshot: string | null }>('SELECT status, snapshot FROM runs WHERE organization_id = $1 AND id = $2', [organizationId, runId])
      if (!row) throw notFound('run')
      const state = parseJson<{ context?: RunState } | null>(row.snapshot, null)?.context
      const waiting = Object.values(state?.nodes ?? {}).find((n) => n.nodeId === nodeId && (n.status === 'waiting' || n.status === 'scheduled'))
      if (!waiting) throw conflict(`node "${nodeId}" is not waiting`)
      if (waiting.status === 'scheduled') throw conflict(`node "${nodeId}" is a delay; it resumes by itself`)
      await post(runId, { type: 'RESUME', key: waiting.key, data: data ?? null })
      deps.wake(runId)
    },
  }
}
