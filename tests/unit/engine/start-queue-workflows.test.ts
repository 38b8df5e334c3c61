/** The executor's start queue takes an organization's workflows in turn, and places runs a flow-control release let go by their age. */
import { describe, expect, it } from 'bun:test'
import { createStartQueue } from '../../../runtime/engine/start-queue.ts'

const drain = (queue: ReturnType<typeof createStartQueue>) => {
  const out: string[] = []
  for (let item = queue.next(); item; item = queue.next()) out.push(item.runId)
  return out
}

describe('the start queue within an organization', () => {
  it('takes its workflows in turn, one run each, however many one of them queued', () => {
    const queue = createStartQueue(() => 0)
    for (let i = 0; i < 1_000; i++) queue.add({ runId: `a${i}`, organizationId: 'O', workflowId: 'A' })
    for (let i = 0; i < 3; i++) queue.add({ runId: `b${i}`, organizationId: 'O', workflowId: 'B' })
    expect(drain(queue).slice(0, 7)).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3'])
  })

  it('keeps priority within a workflow, and the organizations weighted above the workflows', () => {
    const queue = createStartQueue(
      () => 0,
      (org) => (org === 'P' ? 2 : 1),
    )
    queue.add({ runId: 'a-low', organizationId: 'O', workflowId: 'A', priority: -1 })
    queue.add({ runId: 'a-high', organizationId: 'O', workflowId: 'A', priority: 1 })
    queue.add({ runId: 'b', organizationId: 'O', workflowId: 'B' })
    for (let i = 0; i < 4; i++) queue.add({ runId: `p${i}`, organizationId: 'P', workflowId: 'C' })
    expect(drain(queue)).toEqual(['a-high', 'p0', 'p1', 'b', 'p2', 'p3', 'a-low'])
    expect(queue.backlog().of('O')).toBe(0)
  })

  it('ranks a released run by the time it was admitted, not the time it was queued here', () => {
    let now = 100_000
    const queue = createStartQueue(() => now)
    queue.add({ runId: 'queued', organizationId: 'O', workflowId: 'A' })
    now += 30_000
    // Admitted before the run queued here, and released 30 s later: it starts first.
    queue.add({ runId: 'released', organizationId: 'O', workflowId: 'A', queuedAt: 90_000, woken: true })
    // Admitted with priority 5 just before; aged like the others since then.
    queue.add({ runId: 'urgent', organizationId: 'O', workflowId: 'A', priority: 5, queuedAt: 104_000 })
    expect(drain(queue)).toEqual(['released', 'urgent', 'queued'])
  })
})
