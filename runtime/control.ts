/**
 * Steering runs from the API: cancel and resume become events in the run's inbox (durable
 * before the call answers), and the run is woken to take them.
 *
 * A cancel always ends a run that has not ended: when nobody took the cancel from the inbox
 * within the wait (no worker is running, or the run cannot be executed), the run is ended as
 * cancelled here, and fenced so that no worker writes to it again.
 */
import { runs } from '../core/store/runs.ts'
import { runInbox } from '../core/store/run-side.ts'
import { flowRuns } from '../core/store/flow-control.ts'
import type { RunStatus } from '../core/domain/run.ts'
import { isTerminal, isTerminalRunEvent } from '../core/domain/run-lifecycle.ts'
import { conflict, notFound } from '../core/errors.ts'
import type { RecordedEvent } from '../core/domain-events.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { RunControl } from '../core/ports/engine.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Store } from '../core/ports/store.ts'
import { runStateOf } from './engine/stored-snapshot.ts'
import { endRun } from './engine/run-end.ts'
import { publishEvents } from '../core/domain-events.ts'
import type { EventRecorder } from './event-recorder.ts'
import type { SecretMasks } from '../core/security/value-mask.ts'

/** The owner a run ended by a forced cancel keeps: no worker id, so no worker's journal may write to it again. */
export const CANCELLED_OWNER = 'cancelled'

const CANCEL_REASON = 'cancelled through the API'

export function createRunControl(deps: {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  wake(runId: string): void
  cancelWaitMs?: number
  /** Records the run.cancelled event of a forced cancel (hooks and streams see it like any other). */
  recorder: EventRecorder
  /** The organization's secret values, masked in resume data before it reaches the run's inbox. */
  masks?: SecretMasks
}): RunControl {
  const post = async (runId: string, event: Record<string, unknown>) => {
    const id = deps.ids.next('evt')
    await deps.store.write((tx) => runInbox.add(tx, { id, runId, event: JSON.stringify(event), at: deps.clock.now() }))
    return id
  }

  /** Ends a run as cancelled without its executor, if it has not ended and the cancel is still untaken. */
  async function forceCancel(runId: string, inboxId: string): Promise<void> {
    const end = { status: 'cancelled', at: deps.clock.now(), reason: CANCEL_REASON, owner: CANCELLED_OWNER } as const
    const recorded = await deps.store.write((tx) =>
      endRun(tx, deps.recorder, runId, end, (tx) => runInbox.has(tx, inboxId)),
    )
    publishEvents(deps.bus, recorded)
  }

  /** Ends a run flow control still holds as cancelled; false when a release started it meanwhile. */
  async function cancelHeld(runId: string): Promise<boolean> {
    const end = { status: 'cancelled', at: deps.clock.now(), reason: CANCEL_REASON, owner: CANCELLED_OWNER } as const
    const recorded = await deps.store.write((tx) =>
      endRun(tx, deps.recorder, runId, end, (tx) => flowRuns.isHeld(tx, runId)),
    )
    publishEvents(deps.bus, recorded)
    return recorded.length > 0
  }

  /** Resolves with the run's status once it is terminal, or after `ms`. */
  function untilTerminal(runId: string, ms: number): Promise<RunStatus> {
    return new Promise((resolve) => {
      let done = false
      const finish = async () => {
        if (done) return
        done = true
        subscription.unsubscribe()
        clearTimeout(timer)
        const row = await runs.status(deps.store, runId)
        resolve(row?.status ?? 'cancelled')
      }
      const subscription = deps.bus.subscribe<RecordedEvent>(`evt.*.*.${runId}`, (m) => {
        if (isTerminalRunEvent(m.data.type)) void finish()
      })
      const timer = setTimeout(finish, ms)
      runs.status(deps.store, runId).then((row) => {
        if (row && isTerminal(row.status)) void finish()
      })
    })
  }

  return {
    async cancel(organizationId, runId) {
      const row = await runs.statusIn(deps.store, organizationId, runId)
      if (!row) throw notFound('run')
      if (isTerminal(row.status)) throw conflict(`the run has already finished (${row.status})`)
      // A run flow control holds has not started: it ends here, without an executor.
      if (row.waiting_for && (await cancelHeld(runId))) return 'cancelled'
      const finished = untilTerminal(runId, deps.cancelWaitMs ?? 5000)
      const inboxId = await post(runId, { type: 'CANCEL', reason: CANCEL_REASON })
      deps.wake(runId)
      const status = await finished
      if (isTerminal(status)) return status
      await forceCancel(runId, inboxId)
      const after = await runs.status(deps.store, runId)
      return after?.status ?? status
    },

    async resume(organizationId, runId, nodeId, data) {
      const row = await runs.stateIn(deps.store, organizationId, runId)
      if (!row) throw notFound('run')
      const state = runStateOf(row.snapshot)
      const waiting = Object.values(state?.nodes ?? {}).find(
        (n) => n.nodeId === nodeId && (n.status === 'waiting' || n.status === 'scheduled'),
      )
      if (!waiting) throw conflict(`node "${nodeId}" is not waiting`)
      if (waiting.status === 'scheduled') throw conflict(`node "${nodeId}" is a delay; it resumes by itself`)
      const mask = deps.masks ? await deps.masks.of(organizationId) : (value: unknown) => value
      await post(runId, { type: 'RESUME', key: waiting.key, data: mask(data ?? null) })
      deps.wake(runId)
    },
  }
}
