/**
 * Reads a run's persisted machine snapshot as the run record shows it: one entry per node of
 * the definition (`pending` until reached), with per-item `iterations` for nodes inside a
 * for-each body, and the run's variables.
 */
import type { NodeRecord, NodeStatus } from '../core/domain/run.ts'
import type { Definition } from '../core/domain/workflow.ts'
import type { RunProjection } from '../core/ports/engine.ts'
import { iso } from '../core/time.ts'
import type { NodeInstance } from './engine/state.ts'
import { runStateOf } from './engine/stored-snapshot.ts'

const record = (n: NodeInstance): NodeRecord => {
  const out: NodeRecord = {
    type: n.type,
    status: n.status,
    attempts: n.attempts,
    startedAt: iso(n.startedAt) ?? '',
    finishedAt: iso(n.finishedAt) ?? '',
    error: n.error ?? '',
  }
  if (n.input !== undefined) out.input = n.input
  if (n.result !== undefined) out.result = n.result
  if (n.branch !== undefined) out.branch = n.branch
  return out
}

function summarize(type: string, iterations: NodeInstance[]): NodeRecord {
  const statuses = new Set(iterations.map((i) => i.status))
  const some = (s: NodeStatus) => statuses.has(s)
  const status: NodeStatus = some('running')
    ? 'running'
    : some('waiting')
      ? 'waiting'
      : some('scheduled')
        ? 'scheduled'
        : some('failure')
          ? some('success') || some('partial')
            ? 'partial'
            : 'failure'
          : some('partial')
            ? 'partial'
            : some('cancelled')
              ? 'cancelled'
              : some('success')
                ? 'success'
                : 'skipped'
  const last = iterations[iterations.length - 1]
  return {
    type,
    status,
    attempts: iterations.reduce((n, i) => n + i.attempts, 0),
    result: last.result,
    error: last.error ?? '',
    startedAt: iso(iterations[0].startedAt) ?? '',
    finishedAt: iso(last.finishedAt) ?? '',
    iterations: iterations.map((i) => ({ ...record(i), index: i.scope?.map((s) => s.index) ?? [] })),
  }
}

export const runProjection: RunProjection = {
  project(snapshot: string | null, definition: Definition, triggerEvent?: string | null) {
    const state = runStateOf(snapshot, triggerEvent)
    const nodes: Record<string, NodeRecord> = {}
    const scoped = new Map<string, NodeInstance[]>()
    for (const instance of Object.values(state?.nodes ?? {})) {
      if (instance.scope && instance.scope.length > 0) {
        if (!scoped.has(instance.nodeId)) scoped.set(instance.nodeId, [])
        scoped.get(instance.nodeId)!.push(instance)
      } else nodes[instance.nodeId] = record(instance)
    }
    for (const [id, list] of scoped) nodes[id] = summarize(list[0].type, list)
    const triggers = new Set(definition.triggerNodeIds ?? ['root'])
    for (const [id, node] of Object.entries(definition.nodes ?? {})) {
      if (nodes[id]) continue
      const unfiredTrigger = triggers.has(id) && state !== undefined
      nodes[id] = {
        type: node.type,
        status: unfiredTrigger ? 'skipped' : 'pending',
        attempts: 0,
        error: '',
        startedAt: '',
        finishedAt: '',
      }
    }
    return { nodes, vars: state ? { ...state.vars } : null }
  },
}
